import { describe, expect, test } from "vitest";
import { KeyRotationError, type RotationProgress } from "@latchkey/client";
import { type RealServer, startRealServer } from "./real-server.js";

async function setUp(): Promise<{ server: RealServer; ownerClient: ReturnType<RealServer["clientFor"]> }> {
  const server = await startRealServer();
  return { server, ownerClient: server.clientFor(await server.owner()) };
}

async function rotationFailure(promise: Promise<unknown>): Promise<KeyRotationError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(KeyRotationError);
  return error as KeyRotationError;
}

describe("client.keys.rotate", () => {
  test("replaces the key: same configuration, new credentials work, old key disabled last", async () => {
    const { server, ownerClient } = await setUp();
    const old = await ownerClient.keys.create({
      name: "renderer",
      description: "production renderer",
      permissions: ["images:create", "api_keys:read"],
    });
    const steps: RotationProgress["step"][] = [];
    let oldEnabledWhenStored: boolean | undefined;

    const replacement = await ownerClient.keys.rotate(old.id, {
      store: async () => {
        oldEnabledWhenStored = (await ownerClient.keys.get(old.id)).enabled;
      },
      onStep: ({ step }) => steps.push(step),
    });

    expect(steps).toEqual(["read", "create", "store", "verify", "disable"]);
    expect(oldEnabledWhenStored).toBe(true);
    expect(replacement.id).not.toBe(old.id);
    expect(replacement.api_key).toMatch(/^lksk_/);
    expect(replacement).toMatchObject({
      name: "renderer",
      description: "production renderer",
      permissions: ["images:create", "api_keys:read"],
      all_future_permissions: false,
      enabled: true,
    });
    expect((await ownerClient.keys.get(old.id)).enabled).toBe(false);
    const asNew = server.clientFor({ apiId: replacement.api_id, secret: replacement.api_key });
    expect((await asNew.keys.get(replacement.id)).name).toBe("renderer");
    const asOld = server.clientFor({ apiId: old.api_id, secret: old.api_key });
    await expect(asOld.keys.get(old.id)).rejects.toMatchObject({ status: 401 });
  });

  test("a 403 for a missing permission proves the new credentials authenticate", async () => {
    const { ownerClient } = await setUp();
    const old = await ownerClient.keys.create({ name: "images only", permissions: ["images:create"] });
    const replacement = await ownerClient.keys.rotate(old.id);
    expect(replacement.permissions).toEqual(["images:create"]);
    expect((await ownerClient.keys.get(old.id)).enabled).toBe(false);
  });

  test("leaves the old key enabled and names the new key when the verify callback fails", async () => {
    const { server, ownerClient } = await setUp();
    const old = await ownerClient.keys.create({ name: "api", permissions: ["images:read"] });

    const error = await rotationFailure(
      ownerClient.keys.rotate(old.id, {
        verify: async () => {
          throw new Error("health check of the application failed");
        },
      }),
    );

    expect(error.step).toBe("verify");
    expect(error.oldKeyId).toBe(old.id);
    expect(error.newKeyId).toMatch(/^key_/);
    expect(error.message).toContain("health check of the application failed");
    expect(error.message).toContain(String(error.newKeyId));
    expect((await ownerClient.keys.get(old.id)).enabled).toBe(true);
    const asOld = server.clientFor({ apiId: old.api_id, secret: old.api_key });
    await expect(asOld.keys.list()).rejects.toMatchObject({ status: 403, code: "missing_permission" });
    // The replacement exists, so the caller can clean it up as told.
    expect((await ownerClient.keys.get(String(error.newKeyId))).name).toBe("api");
  });

  test("a verify callback returning false stops the rotation too", async () => {
    const { ownerClient } = await setUp();
    const old = await ownerClient.keys.create({ permissions: ["images:read"] });
    const error = await rotationFailure(ownerClient.keys.rotate(old.id, { verify: () => false }));
    expect(error.step).toBe("verify");
    expect((await ownerClient.keys.get(old.id)).enabled).toBe(true);
  });

  test("a 401 for the new credentials fails verification and leaves the old key enabled", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const ownerAuthorization = `Basic ${Buffer.from(`${owner.apiId}:${owner.secret}`).toString("base64")}`;
    // Everything but the owner's own requests is sent with a wrong secret, so the server answers 401
    // to the verification request exactly as it would to credentials that do not work.
    const garbling: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (headers.get("authorization") !== ownerAuthorization) {
        headers.set("authorization", `Basic ${Buffer.from("lkid_x:lksk_wrong").toString("base64")}`);
      }
      return fetch(input, { ...init, headers });
    };
    const client = server.clientFor(owner, { fetch: garbling });
    const old = await client.keys.create({ name: "victim", permissions: ["images:read"] });

    const error = await rotationFailure(client.keys.rotate(old.id));

    expect(error).toMatchObject({ step: "verify", status: 401, code: "unauthorized" });
    expect(error.message).toContain("did not authenticate");
    expect(error.newKeyId).toMatch(/^key_/);
    expect((await client.keys.get(old.id)).enabled).toBe(true);
  });

  test("a failing store step stops before verification, with the old key enabled", async () => {
    const { ownerClient } = await setUp();
    const old = await ownerClient.keys.create({ permissions: ["images:read"] });
    const error = await rotationFailure(
      ownerClient.keys.rotate(old.id, {
        store: () => {
          throw new Error("vault is sealed");
        },
      }),
    );
    expect(error.step).toBe("store");
    expect(error.newKeyId).toMatch(/^key_/);
    expect((await ownerClient.keys.get(old.id)).enabled).toBe(true);
  });

  test("an unknown key fails at the read step and creates nothing", async () => {
    const { ownerClient } = await setUp();
    const error = await rotationFailure(ownerClient.keys.rotate("key_0000000000000000000000"));
    expect(error).toMatchObject({ step: "read", status: 404, code: "not_found", newKeyId: undefined });
    expect((await ownerClient.keys.list()).data).toHaveLength(1);
  });

  test("rotating the client's own key switches the client to the new credentials", async () => {
    const server = await startRealServer();
    const owner = await server.owner();
    const client = server.clientFor(owner);

    const replacement = await client.keys.rotate(owner.id);

    expect(replacement).toMatchObject({ name: "Owner key", all_future_permissions: true, enabled: true });
    const old = await client.keys.get(owner.id); // succeeds only with the new credentials
    expect(old.enabled).toBe(false);
    const stale = server.clientFor(owner);
    await expect(stale.keys.list()).rejects.toMatchObject({ status: 401 });
  });
});
