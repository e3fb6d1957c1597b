import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  createSecretHasher,
  hasValidSecretChecksum,
  isKeyId,
  newApiId,
  newKeyId,
  newSecret,
  sameStringInConstantTime,
} from "../../src/domain/credentials.js";

describe("identifiers and secrets", () => {
  test("have their documented prefixes and URL-safe bodies", () => {
    expect(newKeyId()).toMatch(/^key_[0-9A-Za-z]{22}$/);
    expect(newApiId()).toMatch(/^lkid_[0-9A-Za-z]{22}$/);
    expect(newSecret()).toMatch(/^lksk_[0-9A-Za-z]{38}$/);
  });

  test("do not repeat", () => {
    const secrets = new Set(Array.from({ length: 2000 }, newSecret));
    expect(secrets.size).toBe(2000);
  });

  test("a secret's checksum lets a scanner tell it from a look-alike", () => {
    const secret = newSecret();
    expect(hasValidSecretChecksum(secret)).toBe(true);
    const flipped = secret.slice(0, 10) + (secret[10] === "a" ? "b" : "a") + secret.slice(11);
    expect(hasValidSecretChecksum(flipped)).toBe(false);
    expect(hasValidSecretChecksum(`lksk_${"a".repeat(38)}`)).toBe(false);
  });

  test("key ids are recognised and api ids are not key ids", () => {
    expect(isKeyId(newKeyId())).toBe(true);
    expect(isKeyId(newApiId())).toBe(false);
  });
});

describe("secret hashing", () => {
  test("the stored hash is not the secret and matches only the secret", () => {
    const hasher = createSecretHasher();
    const secret = newSecret();
    const stored = hasher.hash(secret);
    expect(stored).not.toContain(secret);
    expect(hasher.matches(secret, stored)).toBe(true);
    expect(hasher.matches(newSecret(), stored)).toBe(false);
    expect(hasher.matches(secret, "")).toBe(false);
  });

  test("a hash computed for a lookup is compared with the stored one without hashing again", () => {
    const hasher = createSecretHasher();
    const stored = hasher.hash(newSecret());
    expect(hasher.sameHash(stored, stored)).toBe(true);
    expect(hasher.sameHash(hasher.hash(newSecret()), stored)).toBe(false);
    expect(hasher.sameHash(stored, "")).toBe(false);
    expect(hasher.sameHash(stored, "0".repeat(64))).toBe(false);
  });

  test("a pepper changes the stored hash, so a database alone cannot verify guesses", () => {
    const secret = newSecret();
    const plain = createSecretHasher().hash(secret);
    const peppered = createSecretHasher("a-server-side-pepper-value");
    expect(peppered.hash(secret)).not.toBe(plain);
    expect(peppered.matches(secret, plain)).toBe(false);
    expect(peppered.matches(secret, peppered.hash(secret))).toBe(true);
  });
});

describe("comparing a presented secret with a remembered one", () => {
  test("is string equality, for any two strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        expect(sameStringInConstantTime(a, b)).toBe(a === b);
        expect(sameStringInConstantTime(a, a)).toBe(true);
      }),
    );
  });

  test("tells a secret from one that differs in its last character only", () => {
    const secret = newSecret();
    expect(sameStringInConstantTime(secret, secret.slice())).toBe(true);
    expect(sameStringInConstantTime(secret, `${secret.slice(0, -1)}!`)).toBe(false);
    expect(sameStringInConstantTime(secret, `!${secret.slice(1)}`)).toBe(false);
  });
});
