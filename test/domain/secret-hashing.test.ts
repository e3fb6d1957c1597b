import { expect, test } from "vitest";
import { hashingDisagreement, secretHashingOf } from "../../src/domain/secret-hashing.js";

test("a pepper is recorded as 8 hex digits that name it without holding it; no pepper as plain SHA-256", () => {
  const pepper = "a-pepper-of-sixteen-or-more";
  const hashing = secretHashingOf(pepper);
  expect(hashing).toEqual({
    scheme: "hmac-sha256",
    pepperFingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
  });
  expect(secretHashingOf(pepper)).toEqual(hashing);
  expect(secretHashingOf(`${pepper}!`).pepperFingerprint).not.toBe(hashing.pepperFingerprint);
  expect(secretHashingOf(undefined)).toEqual({ scheme: "sha256", pepperFingerprint: null });
});

test("hashings disagree when one side has a pepper and the other none, or their peppers differ", () => {
  const none = secretHashingOf(undefined);
  const one = secretHashingOf("the-first-pepper-here");
  const other = secretHashingOf("the-second-pepper-here");
  expect(hashingDisagreement(none, none)).toBeNull();
  expect(hashingDisagreement(one, secretHashingOf("the-first-pepper-here"))).toBeNull();
  expect(hashingDisagreement(one, none)).toContain("LATCHKEY_SECRET_PEPPER is not set here");
  expect(hashingDisagreement(none, one)).toContain("LATCHKEY_SECRET_PEPPER is set here");
  expect(hashingDisagreement(one, other)).toContain("differs from the servers'");
});
