import { expect, test } from "vitest";
import { jsonErrorOffset } from "../../src/domain/json-error-offset.js";

test.each([
  "[]",
  " { } ",
  '[{"a": [1, -2.5e3, true, false, null, "x\\"\\u00e9\\n"]}, {}]',
  JSON.stringify({ routes: [{ path: "/a[{", permission: "images:read", credits: 1 }] }, null, 2),
])("valid JSON has no error offset: %s", (text) => {
  expect(() => JSON.parse(text)).not.toThrow();
  expect(jsonErrorOffset(text)).toBeUndefined();
});

test.each([
  ["", 0],
  ["[1,]", 3],
  ['{"a": 1,}', 8],
  ["[1 2]", 3],
  ['{"a" 1}', 5],
  ["[01]", 2],
  ['["\\x"]', 3],
  ["[tru]", 4],
  ["[1]]", 3],
  ['["open', 6],
])("%s fails at offset %i", (text, offset) => {
  expect(() => JSON.parse(text)).toThrow();
  expect(jsonErrorOffset(text)).toBe(offset);
});
