import { expect, test } from "vitest";
import { createSecretHasher, newSecret } from "../../src/domain/credentials.js";
import { createProvedSecrets, type SecretCheck, secretMatches } from "../../src/services/proved-secrets.js";
import { oneCharacterOff } from "../helpers/near-secret.js";

/** A real hasher that counts the secrets it hashed. */
function countingCheck(connection: object | undefined, proved = createProvedSecrets()) {
  const hasher = createSecretHasher();
  let hashed = 0;
  const check: SecretCheck = {
    hasher: {
      matches(secret, storedHash) {
        hashed += 1;
        return hasher.matches(secret, storedHash);
      },
    },
    proved,
    connection,
  };
  return { check, hasher, hashed: () => hashed };
}

test("a secret that verified on a connection is not hashed again on it, but is on another connection", () => {
  const proved = createProvedSecrets();
  const first = countingCheck({}, proved);
  const secret = newSecret();
  const stored = first.hasher.hash(secret);

  expect(secretMatches(first.check, secret, stored)).toBe(true);
  expect(secretMatches(first.check, secret, stored)).toBe(true);
  expect(secretMatches(first.check, secret, stored)).toBe(true);
  expect(first.hashed()).toBe(1);

  const other = countingCheck({}, proved);
  expect(secretMatches(other.check, secret, stored)).toBe(true);
  expect(other.hashed()).toBe(1);
});

test("a wrong secret right after the right one on the same connection is refused, and never remembered", () => {
  const { check, hasher, hashed } = countingCheck({});
  const secret = newSecret();
  const stored = hasher.hash(secret);
  expect(secretMatches(check, secret, stored)).toBe(true);

  // Same length, one character off: compared with the proved secret, then hashed and refused.
  const near = oneCharacterOff(secret);
  expect(secretMatches(check, near, stored)).toBe(false);
  expect(secretMatches(check, near, stored)).toBe(false);
  expect(hashed()).toBe(3);
  // The proof of the right secret is untouched by the refusals.
  expect(secretMatches(check, secret, stored)).toBe(true);
  expect(hashed()).toBe(3);
});

test("a proved secret stands only for the stored hash it matched: another key's hash is checked in full", () => {
  const { check, hasher, hashed } = countingCheck({});
  const secret = newSecret();
  const otherKeysHash = hasher.hash(newSecret());
  expect(secretMatches(check, secret, hasher.hash(secret))).toBe(true);
  expect(secretMatches(check, secret, otherKeysHash)).toBe(false);
  expect(hashed()).toBe(2);
});

test("a connection remembers its last proved secret only", () => {
  const { check, hasher, hashed } = countingCheck({});
  const [one, two] = [newSecret(), newSecret()];
  const [oneHash, twoHash] = [hasher.hash(one), hasher.hash(two)];
  expect(secretMatches(check, one, oneHash)).toBe(true);
  expect(secretMatches(check, two, twoHash)).toBe(true);
  expect(secretMatches(check, two, twoHash)).toBe(true);
  expect(hashed()).toBe(2);
  expect(secretMatches(check, one, oneHash)).toBe(true);
  expect(hashed()).toBe(3);
});

test("without a connection (a platform relaying its customers' credentials) nothing is remembered", () => {
  const { check, hasher, hashed } = countingCheck(undefined);
  const secret = newSecret();
  const stored = hasher.hash(secret);
  expect(secretMatches(check, secret, stored)).toBe(true);
  expect(secretMatches(check, secret, stored)).toBe(true);
  expect(hashed()).toBe(2);
});
