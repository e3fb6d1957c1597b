import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { adminApp } from "../helpers/admin.js";
import { basicAuth } from "../helpers/build-test-app.js";
import { consoleUser, signIn } from "../helpers/console-session.js";
import { tempDir } from "../helpers/processes.js";
import { MCP_POST_HEADERS, rpc } from "../mcp/mcp-client.js";

/**
 * A disabled organization (docs/provisioning.md): its keys are refused with 403 organization_disabled on
 * every surface from the very next request, its data is kept, and enabling it restores everything.
 */
async function disabledOrganizationApp() {
  const routes = join(tempDir(), "routes.json");
  writeFileSync(routes, JSON.stringify([{ method: "GET", path: "/v1/things", permission: "images:read" }]));
  const setup = await adminApp({ env: { LATCHKEY_ROUTES: routes } });
  const { testApp, admin } = setup;
  const app = testApp.app;
  const created = (await admin("POST", "/v1/admin/organizations", { name: "acme" })).json();
  const orgId: string = created.organization.id;
  const auth = basicAuth(created.key.api_id, created.key.api_key);
  const other = await testApp.createOrganization("other");
  const both = await testApp.services.serviceTokens.create("gateway", undefined, ["authorize"]);
  await consoleUser(testApp, orgId, "owner");
  const browser = await signIn(app, "owner@example.com");

  /** The status every surface answers now, with the code of each refusal. */
  async function surfaces() {
    const rest = await app.inject({ method: "GET", url: "/v1/api-keys", headers: auth });
    const authorize = await app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": both.token },
      payload: { authorization: auth.authorization, permission: "images:read" },
    });
    const forward = await app.inject({
      method: "GET",
      url: "/v1/forward-auth",
      headers: {
        ...auth,
        "x-latchkey-service-token": both.token,
        "x-forwarded-method": "GET",
        "x-forwarded-uri": "/v1/things",
      },
    });
    const mcp = await app.inject({
      method: "POST",
      url: "/mcp",
      headers: { ...MCP_POST_HEADERS, ...auth },
      payload: rpc("tools/list"),
    });
    const consolePage = await browser.get(`/console/orgs/${orgId}/keys`);
    const decision = authorize.json();
    return {
      rest: [rest.statusCode, rest.json().code],
      authorize: [decision.status, decision.error?.code],
      forward: [forward.statusCode, forward.statusCode === 200 ? undefined : forward.json().code],
      mcp: [mcp.statusCode, mcp.statusCode === 200 ? undefined : mcp.json().code],
      console: consolePage.statusCode,
    };
  }
  return { ...setup, app, orgId, auth, other, surfaces, browser };
}

test("disabled: every surface refuses the organization's keys and users with 403; enabled: everything is back", async () => {
  const { admin, app, orgId, auth, other, surfaces } = await disabledOrganizationApp();
  const open = await surfaces();
  expect(open).toEqual({
    rest: [200, undefined],
    authorize: [200, undefined],
    forward: [200, undefined],
    mcp: [200, undefined],
    console: 200,
  });
  const keysBefore = (await app.inject({ method: "GET", url: "/v1/api-keys", headers: auth })).json().data;

  const disabled = await admin("PATCH", `/v1/admin/organizations/${orgId}`, { disabled: true });
  expect(disabled.json().enabled).toBe(false);
  expect(await surfaces()).toEqual({
    rest: [403, "organization_disabled"],
    authorize: [403, "organization_disabled"],
    forward: [403, "organization_disabled"],
    mcp: [403, "organization_disabled"],
    console: 403,
  });
  // Only this organization: another one goes on.
  expect((await app.inject({ method: "GET", url: "/v1/api-keys", headers: other.headers })).statusCode).toBe(
    200,
  );
  // A wrong secret still learns nothing but 401.
  const wrong = basicAuth(keysBefore[0].api_id, "lksk_wrong");
  expect((await app.inject({ method: "GET", url: "/v1/api-keys", headers: wrong })).statusCode).toBe(401);

  expect((await admin("PATCH", `/v1/admin/organizations/${orgId}`, { disabled: false })).json().enabled).toBe(
    true,
  );
  expect(await surfaces()).toEqual(open);
  const keysAfter = (await app.inject({ method: "GET", url: "/v1/api-keys", headers: auth })).json().data;
  expect(keysAfter).toEqual(keysBefore);
});

test("a disabled organization keeps its data: the platform still reads its plan and usage, and can recover its owner key", async () => {
  const { admin, app, orgId } = await disabledOrganizationApp();
  await admin("PUT", `/v1/admin/organizations/${orgId}/plan`, { image_credits: 77 });
  await admin("PATCH", `/v1/admin/organizations/${orgId}`, { disabled: true });
  expect((await admin("GET", `/v1/admin/organizations/${orgId}/plan`)).json().image_credits).toBe(77);
  expect((await admin("GET", `/v1/admin/organizations/${orgId}/usage`)).statusCode).toBe(200);
  const recovered = (await admin("POST", `/v1/admin/organizations/${orgId}/owner-keys`, {})).json();
  const headers = basicAuth(recovered.api_id, recovered.api_key);
  expect((await app.inject({ method: "GET", url: "/v1/api-keys", headers })).statusCode).toBe(403);
  await admin("PATCH", `/v1/admin/organizations/${orgId}`, { disabled: false });
  const listed = await app.inject({ method: "GET", url: "/v1/api-keys", headers });
  expect(listed.json().data).toHaveLength(2);
});
