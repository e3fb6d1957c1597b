import { describe, expect, test } from "vitest";
import { KeyRotationError, type RotationProgress } from "@latchkey/client";
import { startRealServer } from "./real-server.js";

describe("client.keys.roll and rotation by roll", () => {
  test("roll keeps id and api_id; both secrets work during the overlap", async () => {
    const server = await startRealServer();
    const owner = server.clientFor(await server.owner());
    const key = await owner.keys.create({ name: "worker", permissions: ["api_keys:read"] });
    const rolled = await owner.keys.roll(key.id, { overlapSeconds: 3600 });
    expect(rolled).toMatchObject({ id: key.id, api_id: key.api_id, name: "worker", expires_at: null });
    expect(Date.parse(rolled.previous_secret_expires_at)).toBeGreaterThan(Date.now());
    const asOld = server.clientFor({ apiId: key.api_id, secret: key.api_key });
    const asNew = server.clientFor({ apiId: key.api_id, secret: rolled.api_key });
    expect((await asOld.keys.get(key.id)).id).toBe(key.id);
    expect((await asNew.keys.get(key.id)).id).toBe(key.id);
    // Without overlapSeconds the server's default applies: an hour. A second roll ends the first overlap.
    const again = await owner.keys.roll(key.id);
    expect(Date.parse(again.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3_500_000);
    expect((await asNew.keys.get(key.id)).id).toBe(key.id);
    await expect(asOld.keys.get(key.id)).rejects.toMatchObject({ status: 401 });
    await owner.keys.roll(key.id, { overlapSeconds: 0 });
    await expect(asNew.keys.get(key.id)).rejects.toMatchObject({ status: 401 });
  });

  test("rotate with overlapSeconds rolls instead of creating, and disables nothing", async () => {
    const server = await startRealServer();
    const owner = server.clientFor(await server.owner());
    const key = await owner.keys.create({ name: "worker", permissions: ["api_keys:read"] });
    const steps: RotationProgress["step"][] = [];
    const rotated = await owner.keys.rotate(key.id, {
      overlapSeconds: 600,
      onStep: ({ step }) => steps.push(step),
    });
    expect(steps).toEqual(["read", "roll", "store", "verify"]);
    expect(rotated).toMatchObject({ id: key.id, api_id: key.api_id, enabled: true });
    const asOld = server.clientFor({ apiId: key.api_id, secret: key.api_key });
    expect((await asOld.keys.get(key.id)).enabled).toBe(true);
  });

  test("a failure after the roll says until when the old secret works, never the new secret", async () => {
    const server = await startRealServer();
    const owner = server.clientFor(await server.owner());
    const key = await owner.keys.create({ permissions: ["api_keys:read"] });
    let secret = "";
    const error = await owner.keys
      .rotate(key.id, {
        overlapSeconds: 60,
        store: (rolled) => {
          secret = rolled.api_key;
          throw new Error("the vault is read-only");
        },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KeyRotationError);
    expect((error as KeyRotationError).step).toBe("store");
    expect((error as KeyRotationError).message).toMatch(/old secret works until \d{4}-/);
    expect((error as KeyRotationError).message).not.toContain(secret);
  });

  test("rotation by a new key carries a future expiry over", async () => {
    const server = await startRealServer();
    const owner = server.clientFor(await server.owner());
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const key = await owner.keys.create({ permissions: ["api_keys:read"], expires_at: expiresAt });
    const replacement = await owner.keys.rotate(key.id);
    expect(replacement.id).not.toBe(key.id);
    expect(replacement.expires_at).toBe(expiresAt);
  });
});
