import { adminApp } from "./admin.js";
import { basicAuth, type TestApp } from "./build-test-app.js";

/** An organization with `allowance` credits a period, made through the provisioning API. */
export async function grantsApp(allowance: number, options: Parameters<typeof adminApp>[0] = {}) {
  const setup = await adminApp(options);
  const { testApp, admin } = setup;
  const created = (
    await admin("POST", "/v1/admin/organizations", { name: "acme", plan: { image_credits: allowance } })
  ).json();
  const orgId: string = created.organization.id;
  const authorization = basicAuth(created.key.api_id, created.key.api_key).authorization;
  const { token } = await testApp.services.serviceTokens.create("images");
  const render = async (credits = 1, app: TestApp = testApp) =>
    (
      await app.app.inject({
        method: "POST",
        url: "/v1/authorize",
        headers: { "x-latchkey-service-token": token },
        payload: { authorization, permission: "images:create", credits },
      })
    ).json();
  const grants = async () =>
    (await admin("GET", `/v1/admin/organizations/${orgId}/credit-grants`)).json().data;
  const grant = (body: unknown) => admin("POST", `/v1/admin/organizations/${orgId}/credit-grants`, body);
  return { ...setup, orgId, render, grants, grant };
}
