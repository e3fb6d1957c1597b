import { createHmac } from "node:crypto";
import { expect, test } from "vitest";
import { isTotpSecret, newTotpSecret, totpCode, totpStep, totpUri } from "../../src/domain/totp.js";

const NOW = Date.parse("2026-11-27T10:00:10.000Z");
const STEP = Math.floor(NOW / 30_000);

/** RFC 6238 computed here from its definition, independently of the library the product uses. */
function referenceCode(base32: string, step: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of base32) bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)?.map((byte) => parseInt(byte, 2)) ?? []);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

test("a new secret is 160 random bits in base32, and the app's URI names latchkey and the user", () => {
  const secret = newTotpSecret();
  expect(isTotpSecret(secret)).toBe(true);
  expect(newTotpSecret()).not.toBe(secret);
  expect(isTotpSecret("not a secret")).toBe(false);
  expect(totpUri(secret, "ada@example.com")).toBe(
    `otpauth://totp/latchkey:ada%40example.com?issuer=latchkey&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
  );
});

test("the code of now, of the step before and of the step after are accepted, with their step; others are not", () => {
  const secret = newTotpSecret();
  expect(totpCode(secret, NOW)).toBe(referenceCode(secret, STEP));
  expect(totpStep(secret, referenceCode(secret, STEP), NOW)).toBe(STEP);
  expect(totpStep(secret, referenceCode(secret, STEP - 1), NOW)).toBe(STEP - 1);
  expect(totpStep(secret, referenceCode(secret, STEP + 1), NOW)).toBe(STEP + 1);
  const far = [STEP - 3, STEP - 2, STEP + 2, STEP + 3].map((step) => referenceCode(secret, step));
  for (const code of far.filter(
    (code) => ![-1, 0, 1].some((d) => referenceCode(secret, STEP + d) === code),
  )) {
    expect(totpStep(secret, code, NOW)).toBeNull();
  }
});

test("a code is read with spaces left out; anything but six digits is no code", () => {
  const secret = newTotpSecret();
  const code = referenceCode(secret, STEP);
  expect(totpStep(secret, `${code.slice(0, 3)} ${code.slice(3)}`, NOW)).toBe(STEP);
  for (const typed of ["", "12345", "1234567", "abcdef", `${code}x`]) {
    expect(totpStep(secret, typed, NOW)).toBeNull();
  }
});
