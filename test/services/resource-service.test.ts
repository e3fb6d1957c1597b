import { expect, onTestFinished, test } from "vitest";
import { randomBase62 } from "../../src/domain/credentials.js";
import { LatchkeyError } from "../../src/domain/errors.js";
import { OG_CONFIGS } from "../../src/domain/resource-families.js";
import { createResourceService } from "../../src/services/resource-service.js";
import { openStores } from "../../src/store/open-database.js";
import { fakeClock } from "../helpers/build-test-app.js";

/**
 * The service validates every input itself, so an adapter that skips schema validation (MCP tool
 * arguments, a program calling it directly) gets the same 400s as REST.
 */
async function service(maxRecords?: number) {
  const stores = await openStores("sqlite::memory:");
  onTestFinished(() => stores.close());
  const orgId = `org_${randomBase62(22)}`;
  await stores.keys.createOrganization({ id: orgId, name: "acme", createdAt: 0 });
  const options = { store: stores.resources, clock: fakeClock(), ...(maxRecords ? { maxRecords } : {}) };
  return { service: createResourceService(OG_CONFIGS, options), caller: { orgId } };
}

async function refusal(work: Promise<unknown>): Promise<LatchkeyError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof LatchkeyError)) throw new Error(`expected a LatchkeyError, got ${String(error)}`);
  return error;
}

test.each([
  ["an unknown member", { name: "a", colour: "red" }, "/colour"],
  ["a missing name", {}, "/name"],
  ["a wrong type", { name: "a", disabled: "yes" }, "/disabled"],
  ["a non-object", "name=a", "/"],
  ["oversized settings", { name: "a", settings: { v: "x".repeat(20_000) } }, "/settings"],
])("create refuses %s with invalid_request pointing at it", async (_label, input, path) => {
  const { service: svc, caller } = await service();
  const error = await refusal(svc.create(caller, input));
  expect(error.code).toBe("invalid_request");
  expect(error.validationErrors?.map((issue) => issue.path)).toContain(path);
  expect((await svc.list(caller)).data).toEqual([]);
});

test("list validates count and page_start and defaults to 10", async () => {
  const { service: svc, caller } = await service();
  for (let i = 0; i < 12; i++) await svc.create(caller, { name: `r${i}` });
  expect((await svc.list(caller)).data).toHaveLength(10);
  expect((await svc.list(caller, { count: 100 })).data).toHaveLength(12);
  expect((await refusal(svc.list(caller, { count: 0 }))).code).toBe("invalid_request");
  expect((await refusal(svc.list(caller, { count: "5" }))).code).toBe("invalid_request");
  expect((await refusal(svc.list(caller, { include_disabled: true }))).code).toBe("invalid_request");
  expect((await refusal(svc.list(caller, { page_start: "forged" }))).code).toBe("invalid_request");
});

test("ids of the wrong shape are 400 before any lookup; unknown ones 404", async () => {
  const { service: svc, caller } = await service();
  for (const id of ["prx_0000000000000000000000", "", "ogc_x"]) {
    expect((await refusal(svc.get(caller, id))).code).toBe("invalid_request");
    expect((await refusal(svc.update(caller, id, { name: "a" }))).code).toBe("invalid_request");
    expect((await refusal(svc.delete(caller, id))).code).toBe("invalid_request");
  }
  const unknown = "ogc_0000000000000000000000";
  expect((await refusal(svc.get(caller, unknown))).code).toBe("not_found");
  // Validation comes first: a bad body for an unknown id is 400, not 404.
  expect((await refusal(svc.update(caller, unknown, { name: "" }))).code).toBe("invalid_request");
  expect((await refusal(svc.delete(caller, unknown))).code).toBe("not_found");
});

test("the input object is not modified by defaulting", async () => {
  const { service: svc, caller } = await service();
  const input = { name: "a" };
  const record = await svc.create(caller, input);
  expect(input).toEqual({ name: "a" });
  expect(record.settings).toEqual({});
});

test("past the quota, create is resource_quota_exceeded naming the family", async () => {
  const { service: svc, caller } = await service(2);
  await svc.create(caller, { name: "1" });
  await svc.create(caller, { name: "2" });
  const error = await refusal(svc.create(caller, { name: "3" }));
  expect(error.code).toBe("resource_quota_exceeded");
  expect(error.message).toContain("OG configurations");
});
