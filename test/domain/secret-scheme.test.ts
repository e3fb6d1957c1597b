import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { createSecretHasher, storedHashesOf } from "../../src/domain/credentials.js";
import { rolledSecrets, secretWorks } from "../../src/domain/key-lifecycle.js";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A key imported with only the SHA-256 of its secret, never rolled. */
const importedKey = () => ({
  secretHash: sha256("old-secret-1234567"),
  secretScheme: "sha256" as const,
  expiresAt: null,
  previousSecretHash: null,
  previousSecretScheme: "server" as const,
  previousSecretExpiresAt: null,
});

describe("per-key secret schemes", () => {
  const peppered = createSecretHasher("a-pepper-of-16-characters");

  test("an imported plain SHA-256 matches under its own scheme, whatever the pepper", () => {
    expect(peppered.matches("old-secret-1234567", sha256("old-secret-1234567"), "sha256")).toBe(true);
    expect(peppered.matches("old-secret-1234567", sha256("old-secret-1234567"))).toBe(false);
    expect(peppered.matches("old-secret-1234567", sha256("another-secret-123"), "sha256")).toBe(false);
    const key = importedKey();
    expect(secretWorks(key, "old-secret-1234567", T0, peppered)).toBe(true);
  });

  test("a roll of an imported key hashes the new secret the server's way", () => {
    const key = importedKey();
    const rolled = { ...key, ...rolledSecrets(key, peppered.hash("new-secret-1234567"), T0, 0) };
    expect(rolled.secretScheme).toBe("server");
    expect(secretWorks(rolled, "new-secret-1234567", T0, peppered)).toBe(true);
  });

  test("a roll with overlap of an imported key keeps its old secret working until the overlap ends", () => {
    const key = importedKey();
    const rolled = { ...key, ...rolledSecrets(key, peppered.hash("new-secret-1234567"), T0, 60) };
    expect(secretWorks(rolled, "old-secret-1234567", T0 + 59_999, peppered)).toBe(true);
    expect(secretWorks(rolled, "new-secret-1234567", T0 + 59_999, peppered)).toBe(true);
    expect(secretWorks(rolled, "old-secret-1234567", T0 + 60_000, peppered)).toBe(false);
  });

  test("a reported token is looked up under every hash it may be stored as", () => {
    expect(storedHashesOf(peppered, "lksk_x")).toEqual([peppered.hash("lksk_x"), sha256("lksk_x")]);
    // Without a pepper both schemes hash alike: one lookup.
    expect(storedHashesOf(createSecretHasher(), "lksk_x")).toEqual([sha256("lksk_x")]);
  });
});
