import { expect, test } from "vitest";
import { newKeyId } from "../../src/domain/credentials.js";
import { decodeCursor, encodeCursor } from "../../src/services/list-cursor.js";

test("a cursor round-trips the position it was made from", () => {
  const position = { createdAt: 1_795_000_000_123, id: newKeyId() };
  expect(decodeCursor(encodeCursor(position))).toEqual(position);
});

test.each([
  ["garbage", "not a cursor!"],
  ["valid base64 of something else", Buffer.from("hello").toString("base64url")],
  ["a cursor with its id changed", Buffer.from("1795000000123.key_short").toString("base64url")],
  ["an empty cursor", ""],
])("%s is refused as a bad request", (_label, cursor) => {
  expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: "invalid_request" }));
});
