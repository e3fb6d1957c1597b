import { describe, expect, test } from "vitest";
import { adminApp } from "../helpers/admin.js";
import { basicAuth, fakeClock } from "../helpers/build-test-app.js";

const ADMIN_ROUTES: [string, string, unknown?][] = [
  ["POST", "/v1/admin/organizations", { name: "acme" }],
  ["GET", "/v1/admin/organizations"],
  ["GET", "/v1/admin/organizations/org_x"],
  ["PATCH", "/v1/admin/organizations/org_x", { disabled: true }],
  ["GET", "/v1/admin/organizations/org_x/plan"],
  ["PUT", "/v1/admin/organizations/org_x/plan", {}],
  ["POST", "/v1/admin/organizations/org_x/owner-keys", {}],
  ["GET", "/v1/admin/organizations/org_x/usage"],
];

describe("/v1/admin: a service token with the provision scope, and nothing else", () => {
  test.each(ADMIN_ROUTES)(
    "%s %s: no token 401, an authorize-only token 403 missing_scope",
    async (method, url, body) => {
      const { testApp, admin } = await adminApp();
      const { token: authorizeOnly } = await testApp.services.serviceTokens.create("images");
      const anonymous = await admin(method as "GET", url, body, { token: null });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().code).toBe("invalid_service_token");
      const scoped = await admin(method as "GET", url, body, { token: authorizeOnly });
      expect(scoped.statusCode).toBe(403);
      expect(scoped.json()).toMatchObject({
        code: "missing_scope",
        message: expect.stringContaining("provision"),
      });
      expect((await admin("GET", "/v1/admin/organizations")).json().data).toEqual([]);
    },
  );

  test("a customer's owner key is no service token: 401", async () => {
    const { testApp, admin } = await adminApp();
    const owner = await testApp.createOrganization();
    const response = await admin("GET", "/v1/admin/organizations", undefined, {
      token: null,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe("invalid_service_token");
  });

  test("a provision-only token cannot authorize (403 missing_scope); one with both scopes can do both", async () => {
    const { testApp, admin, token } = await adminApp();
    const body = { authorization: null, permission: "images:create" };
    const refused = await testApp.app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": token },
      payload: body,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe("missing_scope");
    const both = await testApp.services.serviceTokens.create("both", undefined, ["authorize", "provision"]);
    const decided = await testApp.app.inject({
      method: "POST",
      url: "/v1/authorize",
      headers: { "x-latchkey-service-token": both.token },
      payload: body,
    });
    expect(decided.statusCode).toBe(200);
    expect((await admin("GET", "/v1/admin/organizations", undefined, { token: both.token })).statusCode).toBe(
      200,
    );
  });
});

describe("POST /v1/admin/organizations", () => {
  test("creates the organization with its plan, limits and an owner key whose secret is answered once", async () => {
    const { testApp, admin, tokenId } = await adminApp();
    const created = await admin("POST", "/v1/admin/organizations", {
      name: "Acme Corp",
      external_id: "cus_1",
      plan: { image_credits: 5000, overages: true },
      limits: { "api-key:read": { policies: [{ quota: 3, window_seconds: 60 }] } },
      owner_key: { name: "Acme's owner" },
    });
    expect(created.statusCode).toBe(201);
    const { organization, key } = created.json();
    expect(organization).toEqual({
      id: expect.stringMatching(/^org_/),
      name: "Acme Corp",
      external_id: "cus_1",
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(key).toMatchObject({
      name: "Acme's owner",
      all_future_permissions: true,
      api_key: expect.any(String),
    });

    // The owner key works, and the organization's own limit applies to it.
    const auth = basicAuth(key.api_id, key.api_key);
    const listed = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: auth });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers["ratelimit-policy"]).toBe('"api-key:read";q=3;w=60');
    expect(listed.json().data[0]).not.toHaveProperty("api_key");

    const plan = await admin("GET", `/v1/admin/organizations/${organization.id}/plan`);
    expect(plan.json()).toMatchObject({ image_credits: 5000, overages: true, max_batch_size: 0 });

    const audit = await testApp.app.inject({ method: "GET", url: "/v1/audit", headers: auth });
    const actions = audit
      .json()
      .data.map((entry: { action: string; actor: string }) => [entry.action, entry.actor]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ["organization.create", `service_token:${tokenId}`],
        ["api_key.create", `service_token:${tokenId}`],
      ]),
    );
  });

  test("admin requests are not counted against any organization's groups", async () => {
    const { testApp, admin } = await adminApp();
    const created = await admin("POST", "/v1/admin/organizations", {
      name: "acme",
      limits: { "api-key:read": { policies: [{ quota: 1, window_seconds: 60 }] } },
    });
    const { organization, key } = created.json();
    for (let i = 0; i < 5; i++) {
      expect((await admin("GET", `/v1/admin/organizations/${organization.id}`)).statusCode).toBe(200);
      expect(await admin("GET", `/v1/admin/organizations/${organization.id}/usage`)).toHaveProperty(
        "statusCode",
        200,
      );
    }
    const read = await testApp.app.inject({
      method: "GET",
      url: "/v1/api-keys",
      headers: basicAuth(key.api_id, key.api_key),
    });
    expect(read.statusCode).toBe(200);
    expect(read.headers.ratelimit).toMatch(/^"api-key:read";r=0(;|$)/);
  });

  test.each([
    [
      "an unknown group",
      { limits: { render: { policies: [{ quota: 1, window_seconds: 1 }] } } },
      "/limits/render",
    ],
    [
      "a window of 0 s",
      { limits: { "api-key:read": { policies: [{ quota: 1, window_seconds: 0 }] } } },
      "window_seconds",
    ],
    [
      "a window over 31 days",
      { limits: { "api-key:read": { policies: [{ quota: 1, window_seconds: 2_678_401 }] } } },
      "window_seconds",
    ],
    [
      "six windows",
      {
        limits: {
          "api-key:read": { policies: [1, 2, 3, 4, 5, 6].map((w) => ({ quota: 10, window_seconds: w })) },
        },
      },
      "policies",
    ],
    [
      "a quota above 1e9",
      { limits: { "api-key:read": { policies: [{ quota: 1e9 + 1, window_seconds: 60 }] } } },
      "quota",
    ],
    [
      "two policies of one window",
      {
        limits: {
          "api-key:read": {
            policies: [
              { quota: 1, window_seconds: 60 },
              { quota: 2, window_seconds: 60 },
            ],
          },
        },
      },
      "same window_seconds",
    ],
    ["a period_anchor that is no time", { plan: { period_anchor: "tomorrow" } }, "period_anchor"],
    ["a blank name", { name: "  " }, "/name"],
    ["an unknown member", { enabled: true }, "enabled"],
  ])("%s: 400 with validation_errors, nothing created", async (_label, extra, mentioned) => {
    const { admin } = await adminApp();
    const response = await admin("POST", "/v1/admin/organizations", { name: "acme", ...extra });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe("invalid_request");
    expect(response.json().validation_errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(response.json())).toContain(mentioned);
    expect((await admin("GET", "/v1/admin/organizations")).json().data).toEqual([]);
  });

  test("an external_id or a name already taken: 409, nothing created", async () => {
    const { admin } = await adminApp();
    expect(
      (await admin("POST", "/v1/admin/organizations", { name: "one", external_id: "cus_1" })).statusCode,
    ).toBe(201);
    const external = await admin("POST", "/v1/admin/organizations", { name: "two", external_id: "cus_1" });
    expect(external.statusCode).toBe(409);
    expect(external.json()).toMatchObject({ code: "external_id_taken", error: "Conflict" });
    const name = await admin("POST", "/v1/admin/organizations", { name: "ONE", external_id: "cus_2" });
    expect(name.statusCode).toBe(409);
    expect(name.json().code).toBe("organization_name_taken");
    const all = (await admin("GET", "/v1/admin/organizations")).json().data;
    expect(all.map((org: { name: string }) => org.name)).toEqual(["one"]);
  });

  test("an Idempotency-Key replays the first answer, secret included, to the same token only", async () => {
    const { testApp, admin } = await adminApp();
    const headers = { "idempotency-key": "signup-42" };
    const first = await admin("POST", "/v1/admin/organizations", { name: "acme" }, { headers });
    const again = await admin("POST", "/v1/admin/organizations", { name: "acme" }, { headers });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const other = await admin("POST", "/v1/admin/organizations", { name: "beta" }, { headers });
    expect(other.json().code).toBe("idempotency_key_reused");

    // Another token's same key is another request: it learns nothing of the first answer.
    const { token } = await testApp.services.serviceTokens.create("other", undefined, ["provision"]);
    const stranger = await admin("POST", "/v1/admin/organizations", { name: "acme" }, { token, headers });
    expect(stranger.statusCode).toBe(409);
    expect(stranger.json().code).toBe("organization_name_taken");
    expect((await admin("GET", "/v1/admin/organizations")).json().data).toHaveLength(1);
  });
});

describe("finding, changing and recovering organizations", () => {
  test("list: newest first in keyset pages, by name_prefix and by external_id", async () => {
    const clock = fakeClock();
    const { admin } = await adminApp({ clock });
    for (const [name, external] of [
      ["acme", "c1"],
      ["acorn", "c2"],
      ["beta", "c3"],
      ["acme labs", "c4"],
    ]) {
      await admin("POST", "/v1/admin/organizations", { name, external_id: external });
      clock.advance(1000);
    }
    const names: string[] = [];
    let page = "";
    do {
      const response = await admin(
        "GET",
        `/v1/admin/organizations?count=3${page ? `&page_start=${page}` : ""}`,
      );
      expect(response.statusCode).toBe(200);
      names.push(...response.json().data.map((org: { name: string }) => org.name));
      page = response.json().pagination.next_page_start ?? "";
    } while (page);
    expect(names).toEqual(["acme labs", "beta", "acorn", "acme"]);

    const acme = await admin("GET", "/v1/admin/organizations?name_prefix=acm");
    expect(acme.json().data.map((org: { name: string }) => org.name)).toEqual(["acme labs", "acme"]);
    const byExternal = await admin("GET", "/v1/admin/organizations?external_id=c3");
    expect(byExternal.json().data.map((org: { name: string }) => org.name)).toEqual(["beta"]);
    expect((await admin("GET", "/v1/admin/organizations?page_start=bogus")).statusCode).toBe(400);
    expect((await admin("GET", "/v1/admin/organizations?count=0")).statusCode).toBe(400);
  });

  test("get and patch: rename, change or remove the external_id, 409 when taken, 404 when unknown", async () => {
    const { admin } = await adminApp();
    const one = (await admin("POST", "/v1/admin/organizations", { name: "one", external_id: "c1" })).json()
      .organization;
    await admin("POST", "/v1/admin/organizations", { name: "two", external_id: "c2" });
    const renamed = await admin("PATCH", `/v1/admin/organizations/${one.id}`, {
      name: "uno",
      external_id: "c9",
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: one.id, name: "uno", external_id: "c9", enabled: true });
    const taken = await admin("PATCH", `/v1/admin/organizations/${one.id}`, {
      name: "renamed",
      external_id: "c2",
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe("external_id_taken");
    expect((await admin("GET", `/v1/admin/organizations/${one.id}`)).json()).toMatchObject({
      name: "uno",
      external_id: "c9",
    });
    const cleared = await admin("PATCH", `/v1/admin/organizations/${one.id}`, { external_id: null });
    expect(cleared.json().external_id).toBeNull();
    expect((await admin("PATCH", `/v1/admin/organizations/${one.id}`, { disabled: "yes" })).statusCode).toBe(
      400,
    );
    expect((await admin("GET", "/v1/admin/organizations/org_unknown")).statusCode).toBe(404);
    expect((await admin("PATCH", "/v1/admin/organizations/org_unknown", { name: "x" })).statusCode).toBe(404);
    expect((await admin("GET", "/v1/admin/organizations/not-an-id")).statusCode).toBe(400);
  });

  test("PUT plan is a full replacement; period_anchor moves the period", async () => {
    const { admin } = await adminApp();
    const org = (
      await admin("POST", "/v1/admin/organizations", {
        name: "acme",
        plan: { image_credits: 10, proxies: false },
      })
    ).json().organization;
    const url = `/v1/admin/organizations/${org.id}/plan`;
    const replaced = await admin("PUT", url, { image_credits: 900, period_anchor: "2026-01-15T00:00:00Z" });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toEqual({
      image_credits: 900,
      overages: false,
      period_anchor: "2026-01-15T00:00:00.000Z",
      max_batch_size: 0,
      // Omitted: back to the default.
      proxies: true,
      storage_destinations: true,
      credit_thresholds: [80, 100],
    });
    expect((await admin("GET", url)).json()).toEqual(replaced.json());
    const bad = await admin("PUT", url, { image_credits: -1 });
    expect(bad.statusCode).toBe(400);
    expect((await admin("GET", url)).json()).toEqual(replaced.json());
    const usage = await admin("GET", `/v1/admin/organizations/${org.id}/usage`);
    expect(usage.json().per_billing_period.at(-1).start).toMatch(/-15T00:00:00.000Z$/);
  });

  test("credit_thresholds: a plan's own alert percentages, sorted; 1-100, distinct, at most 5, else 400 and nothing changed", async () => {
    const { testApp, admin, tokenId } = await adminApp();
    const org = (
      await admin("POST", "/v1/admin/organizations", { name: "acme", plan: { credit_thresholds: [90, 50] } })
    ).json().organization;
    const url = `/v1/admin/organizations/${org.id}/plan`;
    expect((await admin("GET", url)).json().credit_thresholds).toEqual([50, 90]);
    const replaced = await admin("PUT", url, { credit_thresholds: [100, 25, 75] });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().credit_thresholds).toEqual([25, 75, 100]);
    for (const [thresholds, path] of [
      [[0], "/credit_thresholds/0"],
      [[80, 101], "/credit_thresholds/1"],
      [[50.5], "/credit_thresholds/0"],
      [[10, 20, 30, 40, 50, 60], "/credit_thresholds"],
      [[80, 80], "/credit_thresholds"],
      ["80", "/credit_thresholds"],
    ] as const) {
      const bad = await admin("PUT", url, { credit_thresholds: thresholds });
      expect(bad.statusCode, JSON.stringify(thresholds)).toBe(400);
      expect(bad.json().validation_errors[0].path).toBe(path);
    }
    expect((await admin("GET", url)).json().credit_thresholds).toEqual([25, 75, 100]);
    const none = await admin("PUT", url, { credit_thresholds: [] });
    expect(none.json().credit_thresholds).toEqual([]);
    const defaults = await admin("PUT", url, {});
    expect(defaults.json().credit_thresholds).toEqual([80, 100]);
    const audited = await testApp.services.audit.list({
      orgId: org.id,
      count: 10,
      actor: `service_token:${tokenId}`,
    });
    expect(audited.entries.find((entry) => entry.action === "plan.update")?.after).toMatchObject({
      credit_thresholds: null,
    });
  });

  test("owner-keys: a new owner key for recovery, answered once, audited with the token", async () => {
    const { testApp, admin, tokenId } = await adminApp();
    const org = (await admin("POST", "/v1/admin/organizations", { name: "acme" })).json().organization;
    const recovered = await admin("POST", `/v1/admin/organizations/${org.id}/owner-keys`, {
      name: "recovered",
    });
    expect(recovered.statusCode).toBe(201);
    const key = recovered.json();
    expect(key).toMatchObject({ name: "recovered", all_future_permissions: true });
    const auth = basicAuth(key.api_id, key.api_key);
    const listed = await testApp.app.inject({ method: "GET", url: "/v1/api-keys", headers: auth });
    expect(listed.json().data).toHaveLength(2);
    const audit = await testApp.app.inject({ method: "GET", url: "/v1/audit?count=100", headers: auth });
    const entry = audit.json().data.find((found: { target_id: string }) => found.target_id === key.id);
    expect(entry).toMatchObject({ action: "api_key.create", actor: `service_token:${tokenId}` });
    expect((await admin("POST", "/v1/admin/organizations/org_unknown/owner-keys", {})).statusCode).toBe(404);
  });
});
