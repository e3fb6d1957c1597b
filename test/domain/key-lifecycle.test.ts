import { describe, expect, test } from "vitest";
import { createSecretHasher } from "../../src/domain/credentials.js";
import { LatchkeyError } from "../../src/domain/errors.js";
import {
  EXPIRY_ONLY_FORWARD,
  expiryOnCreate,
  expiryOnUpdate,
  isExpired,
  parseRequestedExpiry,
  rolledSecrets,
  secretWorks,
} from "../../src/domain/key-lifecycle.js";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const DAY = 86_400_000;
const hasher = createSecretHasher();

function refusal(run: () => unknown): LatchkeyError {
  try {
    run();
  } catch (error) {
    if (error instanceof LatchkeyError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("expiry", () => {
  test("a key is expired from the millisecond of expires_at on; without one, never", () => {
    expect(isExpired({ expiresAt: T0 }, T0 - 1)).toBe(false);
    expect(isExpired({ expiresAt: T0 }, T0)).toBe(true);
    expect(isExpired({ expiresAt: null }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  test("a requested expiry must be a real RFC 3339 time in the future", () => {
    expect(parseRequestedExpiry(undefined, T0)).toBeUndefined();
    expect(parseRequestedExpiry(null, T0)).toBeNull();
    expect(parseRequestedExpiry("2026-11-22T11:00:00+01:00", T0 - 1)).toBe(T0);
    for (const bad of ["2026-11-22", "2027-02-31T00:00:00Z", "tomorrow", "2026-11-22T10:00:00"]) {
      expect(refusal(() => parseRequestedExpiry(bad, T0)).validationErrors?.[0]?.path).toBe("/expires_at");
    }
    expect(refusal(() => parseRequestedExpiry("2026-11-22T10:00:00Z", T0)).message).toContain(
      "in the future",
    );
  });

  test("under a longest lifetime, a create gets created_at + the maximum, and nothing later", () => {
    expect(expiryOnCreate(undefined, T0, null)).toBeNull();
    expect(expiryOnCreate(null, T0, 30)).toBe(T0 + 30 * DAY);
    expect(expiryOnCreate(T0 + DAY, T0, 30)).toBe(T0 + DAY);
    expect(expiryOnCreate(T0 + 30 * DAY, T0, 30)).toBe(T0 + 30 * DAY);
    expect(refusal(() => expiryOnCreate(T0 + 30 * DAY + 1, T0, 30)).message).toContain("30 days");
  });

  test("an update keeps it when omitted, takes the same or an earlier time, refuses a later one or null", () => {
    expect(expiryOnUpdate(T0, undefined)).toBe(T0);
    expect(expiryOnUpdate(T0, T0)).toBe(T0);
    expect(expiryOnUpdate(T0, T0 - 1)).toBe(T0 - 1);
    expect(expiryOnUpdate(null, T0)).toBe(T0);
    expect(expiryOnUpdate(null, null)).toBeNull();
    expect(refusal(() => expiryOnUpdate(T0, T0 + 1)).validationErrors?.[0]?.message).toBe(
      EXPIRY_ONLY_FORWARD,
    );
    expect(refusal(() => expiryOnUpdate(T0, null)).validationErrors?.[0]?.path).toBe("/expires_at");
  });
});

describe("rolling", () => {
  const key = {
    secretHash: hasher.hash("first"),
    secretScheme: "server" as const,
    expiresAt: null,
    previousSecretHash: null,
    previousSecretScheme: "server" as const,
    previousSecretExpiresAt: null,
  };

  test("the previous secret works until the overlap ends, the new one from the roll on", () => {
    const rolled = { ...key, ...rolledSecrets(key, hasher.hash("second"), T0, 60) };
    expect(secretWorks(rolled, "second", T0, hasher)).toBe(true);
    expect(secretWorks(rolled, "first", T0 + 59_999, hasher)).toBe(true);
    expect(secretWorks(rolled, "first", T0 + 60_000, hasher)).toBe(false);
    expect(secretWorks(rolled, "other", T0, hasher)).toBe(false);
  });

  test("a roll during an overlap drops the oldest secret; an overlap of 0 keeps none", () => {
    const once = { ...key, ...rolledSecrets(key, hasher.hash("second"), T0, 60) };
    const twice = { ...once, ...rolledSecrets(once, hasher.hash("third"), T0 + 1, 60) };
    expect(secretWorks(twice, "first", T0 + 1, hasher)).toBe(false);
    expect(secretWorks(twice, "second", T0 + 1, hasher)).toBe(true);
    expect(secretWorks(twice, "third", T0 + 1, hasher)).toBe(true);
    const none = { ...twice, ...rolledSecrets(twice, hasher.hash("fourth"), T0 + 2, 0) };
    expect(none.previousSecretHash).toBeNull();
    expect(secretWorks(none, "third", T0 + 2, hasher)).toBe(false);
  });
});
