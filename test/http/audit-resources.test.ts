import { describe, expect, test } from "vitest";
import { RESOURCE_FAMILIES } from "../../src/domain/resource-families.js";
import { ownerApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";

const AUDIT_NAME = { proxies: "proxy", storage_destinations: "storage_destination", og_configs: "og_config" };

async function readTrail(testApp: TestApp, owner: TestKey) {
  const response = await testApp.app.inject({ url: "/v1/audit?count=100", headers: owner.headers });
  return response.json().data as Array<Record<string, unknown>>;
}

describe.each(RESOURCE_FAMILIES.map((family) => ({ family })))("audit of $family.name", ({ family }) => {
  const name = AUDIT_NAME[family.name];

  test("create, update and delete are recorded with the calling key; settings' values are not", async () => {
    const { testApp, owner } = await ownerApp();
    const created = await testApp.app.inject({
      method: "POST",
      url: family.path,
      headers: owner.headers,
      payload: { name: "first", settings: { secret_access_key: "wJalrXUtnFEMI-do-not-keep", region: "eu" } },
    });
    const id = created.json().id;
    await testApp.app.inject({
      method: "POST",
      url: `${family.path}/${id}`,
      headers: owner.headers,
      payload: { name: "second", disabled: true },
    });
    await testApp.app.inject({ method: "DELETE", url: `${family.path}/${id}`, headers: owner.headers });
    const before = await readTrail(testApp, owner);
    // A repeated delete succeeds (204) but removes nothing, so it records nothing.
    const again = await testApp.app.inject({
      method: "DELETE",
      url: `${family.path}/${id}`,
      headers: owner.headers,
    });
    expect(again.statusCode).toBe(204);

    const trail = await readTrail(testApp, owner);
    expect(trail).toEqual(before);
    expect(trail.slice(0, 3)).toMatchObject([
      {
        action: `${name}.delete`,
        actor: owner.id,
        target_id: id,
        before: { name: "second", enabled: false, settings_members: [] },
        after: null,
      },
      {
        action: `${name}.update`,
        before: { name: "first", enabled: true, settings_members: ["region", "secret_access_key"] },
        after: { name: "second", enabled: false },
      },
      { action: `${name}.create`, organization_id: owner.orgId, before: null, after: { id, name: "first" } },
    ]);
    expect(JSON.stringify(trail)).not.toContain("wJalrXUtnFEMI");
  });

  test("a refused change records nothing: plan switched off, bad input, unknown record", async () => {
    const { testApp, owner } = await ownerApp();
    const before = await readTrail(testApp, owner);
    const badInput = await testApp.app.inject({
      method: "POST",
      url: family.path,
      headers: owner.headers,
      payload: { settings: {} },
    });
    expect(badInput.statusCode).toBe(400);
    const unknown = await testApp.app.inject({
      method: "DELETE",
      url: `${family.path}/${family.idPrefix}${"0".repeat(22)}`,
      headers: owner.headers,
    });
    expect(unknown.statusCode).toBe(404);
    if (family.planFeature) {
      await testApp.services.plans.change(owner.orgId, { [family.planFeature]: false });
      const restricted = await testApp.app.inject({
        method: "POST",
        url: family.path,
        headers: owner.headers,
        payload: { name: "x" },
      });
      expect(restricted.json().code).toBe("plan_restricted");
      expect((await readTrail(testApp, owner)).slice(1)).toEqual(before);
    } else {
      expect(await readTrail(testApp, owner)).toEqual(before);
    }
  });
});
