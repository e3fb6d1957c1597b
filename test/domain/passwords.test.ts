import { expect, test } from "vitest";
import {
  decoyPasswordHash,
  hashPassword,
  PRODUCTION_PASSWORD_COST,
  TEST_PASSWORD_COST,
  verifyPassword,
} from "../../src/domain/passwords.js";

const PASSWORD = "correct horse battery staple";

test("a hash is made at production's cost (N = 2^15, r = 8, p = 1) unless a cost is given", async () => {
  expect(PRODUCTION_PASSWORD_COST).toBe(15);
  const stored = await hashPassword(PASSWORD);
  expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  expect(await verifyPassword(PASSWORD, stored)).toBe(true);
  expect(await verifyPassword(`${PASSWORD}!`, stored)).toBe(false);
});

test("a hash made at another cost names it, and verifies whatever the cost of the server checking it", async () => {
  const cheap = await hashPassword(PASSWORD, TEST_PASSWORD_COST);
  expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
  expect(await verifyPassword(PASSWORD, cheap)).toBe(true);
  expect(await verifyPassword("wrong password!", cheap)).toBe(false);
});

test("the decoy of unknown emails is made at the cost users' hashes are made with", async () => {
  expect(await decoyPasswordHash(TEST_PASSWORD_COST)).toMatch(/^scrypt\$1024\$/);
  expect(await decoyPasswordHash()).toMatch(/^scrypt\$32768\$/);
});
