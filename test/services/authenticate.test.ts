import { expect, test } from "vitest";
import { parseBasicCredentials } from "../../src/services/authenticate.js";

const basic = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;

test("parses RFC 7617 credentials, keeping colons in the password", () => {
  expect(parseBasicCredentials(basic("lkid_abc:se:cret"))).toEqual({ apiId: "lkid_abc", secret: "se:cret" });
});

test("the scheme is case-insensitive", () => {
  expect(parseBasicCredentials(`bAsIc ${Buffer.from("a:b").toString("base64")}`)).toEqual({
    apiId: "a",
    secret: "b",
  });
});

test.each([
  ["no header", undefined],
  ["another scheme", `Bearer ${Buffer.from("a:b").toString("base64")}`],
  ["no colon", basic("lkid_abc")],
  ["an empty user-id", basic(":secret")],
  ["characters outside base64", "Basic a:b"],
  ["no credentials after the scheme", "Basic "],
])("%s yields no credentials", (_label, header) => {
  expect(parseBasicCredentials(header)).toBeUndefined();
});
