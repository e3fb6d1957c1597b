import { describe, expect, test } from "vitest";
import { parseRouteTable } from "../../src/domain/route-table.js";

describe("parseRouteTable: a bad file is refused with the line to fix", () => {
  test.each([
    [
      "an unknown permission",
      '[\n  { "path": "/a", "permission": "images:read" },\n  { "path": "/b", "permission": "images:fly" }\n]',
      /route 2 on line 3 has an unknown "permission" "images:fly"/,
    ],
    [
      "an unknown group",
      '[\n  {\n    "path": "/a",\n    "permission": "proxies:read",\n    "group": "proxies:read"\n  }\n]',
      /route 1 on line 2 has an unknown "group" "proxies:read"/,
    ],
    [
      "a case_insensitive that is not a boolean",
      '[{ "path": "/a", "permission": "images:read", "case_insensitive": "yes" }]',
      /route 1 on line 1 has "case_insensitive" that is not true or false/,
    ],
    [
      "credits 0",
      '[{ "path": "/a", "permission": "images:create", "credits": 0 }]',
      /route 1 on line 1 has "credits" that is not a whole number >= 1/,
    ],
    [
      "credits 1.5",
      '[\n\n{ "path": "/a", "permission": "images:create", "credits": 1.5 }]',
      /route 1 on line 3 has "credits"/,
    ],
    [
      "credits as a string",
      '[{ "path": "/a", "permission": "images:create", "credits": "1" }]',
      /has "credits"/,
    ],
    [
      "an unknown member",
      '[\n{ "path": "/a", "permission": "images:create", "credit": 1 }]',
      /route 1 on line 2 has unknown member\(s\) credit/,
    ],
    [
      "a path not starting with /",
      '[{ "path": "v1/a", "permission": "images:read" }]',
      /"path" starting with \//,
    ],
    ["a missing path", '[{ "permission": "images:read" }]', /"path" starting with \//],
    ["a bad method", '[{ "method": "GET POST", "path": "/a", "permission": "images:read" }]', /bad "method"/],
    ["not an array", '{ "path": "/a", "permission": "images:read" }', /must be a JSON array/],
    [
      "a trailing comma",
      '[\n  { "path": "/a", "permission": "images:read" },\n]',
      /routes\.json: not valid JSON on line 3/,
    ],
    ["an unclosed array", '[\n  { "path": "/a", "permission": "images:read" }\n', /not valid JSON on line 3/],
  ])("%s", (_label, text, message) => {
    expect(() => parseRouteTable(text, "routes.json")).toThrow(message);
  });

  test("an entry that is not an object is reported on its own line", () => {
    const text = '[\n  "GET /v1/image",\n  { "path": "/a", "permission": "images:read" }\n]';
    expect(() => parseRouteTable(text)).toThrow(/route 1 on line 2 is not an object/);
    const later = '[\n  { "path": "/a", "permission": "images:read" },\n  42,\n  { "path": "/b" }\n]';
    expect(() => parseRouteTable(later)).toThrow(/route 2 on line 3 is not an object/);
  });

  test("an empty file names a line too", () => {
    expect(() => parseRouteTable("", "routes.json")).toThrow(/routes\.json: not valid JSON on line 1/);
  });

  test("strings holding brackets do not shift the lines", () => {
    const text =
      '[\n  { "path": "/a[{", "permission": "images:read" },\n  { "path": "/b", "permission": "x" }\n]';
    expect(() => parseRouteTable(text)).toThrow(/route 2 on line 3/);
  });
});

describe("parseRouteTable: matching", () => {
  const table = parseRouteTable(
    JSON.stringify([
      { method: "post", path: "/v1/image", permission: "images:create", credits: 2 },
      { method: "GET", path: "/v1/proxies/*", permission: "proxies:read", group: "proxy:read" },
      { method: "GET", path: "/v1/proxies/*/logs", permission: "proxies:delete" },
      { method: "*", path: "/v1/usage/**", permission: "usage:read" },
      { path: "/v1/image", permission: "images:read" },
    ]),
  );

  test.each([
    ["POST", "/v1/image", "images:create"],
    ["post", "/v1/image", "images:create"],
    ["GET", "/v1/image", "images:read"],
    ["GET", "/v1/proxies/prx_1", "proxies:read"],
    ["GET", "/v1/proxies/", "proxies:read"],
    ["GET", "/v1/proxies/prx_1/logs", "proxies:delete"],
    ["GET", "/v1/proxies/a/b", undefined],
    ["GET", "/v1/proxies", undefined],
    ["PATCH", "/v1/usage/a/b/c", "usage:read"],
    ["GET", "/v1/usage/", "usage:read"],
    ["GET", "/v1/usage", undefined],
    ["GET", "/v1/imagex", undefined],
    ["GET", "/v1/image/", undefined],
  ])("%s %s -> %s", (method, path, permission) => {
    expect(table.match(method, path)?.permission).toBe(permission);
  });

  test("regular-expression characters in a path are literal", () => {
    const dots = parseRouteTable('[{ "path": "/v1/a.b+(c)", "permission": "images:read" }]');
    expect(dots.match("GET", "/v1/a.b+(c)")).toBeDefined();
    expect(dots.match("GET", "/v1/aXb+(c)")).toBeUndefined();
  });

  test("the parsed routes keep group and credits", () => {
    expect(table.routes[0]).toEqual({
      method: "POST",
      path: "/v1/image",
      permission: "images:create",
      group: undefined,
      credits: 2,
      caseInsensitive: false,
      trailingSlash: false,
    });
  });
});

describe("parseRouteTable: paths as a normalising upstream reads them", () => {
  // The review's table: an Express upstream runs the render handler for /v1/images/render/ and
  // /v1/images/RENDER too (its default routing ignores case and a trailing slash).
  const routes = [
    { method: "POST", path: "/v1/images/render", permission: "images:create", credits: 1 },
    { method: "*", path: "/v1/images/**", permission: "images:read" },
  ];
  const table = parseRouteTable(JSON.stringify(routes));

  test.each(["/v1/images/render/", "/v1/images/RENDER"])(
    "POST %s matches the permissive route exactly but the render route loosely: ambiguous",
    (path) => {
      expect(table.match("POST", path)?.permission).toBe("images:read");
      expect(table.lookup("POST", path)).toMatchObject({
        type: "ambiguous",
        loose: { permission: "images:create" },
        exact: { permission: "images:read" },
      });
    },
  );

  test("the exact path and unrelated paths are plain matches", () => {
    expect(table.lookup("POST", "/v1/images/render")).toMatchObject({
      type: "route",
      route: { permission: "images:create" },
    });
    expect(table.lookup("GET", "/v1/images/render/")).toMatchObject({
      type: "route",
      route: { permission: "images:read" },
    });
    expect(table.lookup("POST", "/v1/images/other")).toMatchObject({ type: "route" });
    expect(table.lookup("POST", "/v1/other")).toEqual({ type: "none" });
  });

  test("a path that matches a route only loosely is ambiguous too, not a silent miss", () => {
    const only = parseRouteTable('[{ "path": "/v1/proxies", "permission": "proxies:read" }]');
    expect(only.lookup("GET", "/v1/proxies/")).toMatchObject({ type: "ambiguous", exact: undefined });
    expect(only.lookup("GET", "/v1/PROXIES")).toMatchObject({ type: "ambiguous", exact: undefined });
    expect(table.lookup("POST", "/v1/Images/Render/")).toMatchObject({
      type: "ambiguous",
      loose: { permission: "images:create" },
      exact: undefined,
    });
  });

  test("a path whose loose match asks the same as its exact one is that route", () => {
    const list = parseRouteTable(
      JSON.stringify([
        { method: "GET", path: "/v1/proxies", permission: "proxies:read" },
        { method: "GET", path: "/v1/proxies/*", permission: "proxies:read" },
      ]),
    );
    expect(list.lookup("GET", "/v1/proxies/")).toMatchObject({
      type: "route",
      route: { path: "/v1/proxies/*" },
    });
  });

  test("a route that opts out matches those variants itself", () => {
    const loose = parseRouteTable(
      JSON.stringify([{ ...routes[0], case_insensitive: true, trailing_slash: true }, routes[1]]),
    );
    for (const path of ["/v1/images/render/", "/v1/images/RENDER", "/v1/images/render"]) {
      expect(loose.lookup("POST", path)).toMatchObject({
        type: "route",
        route: { permission: "images:create" },
      });
    }
    const slashOnly = parseRouteTable(JSON.stringify([{ ...routes[0], trailing_slash: true }, routes[1]]));
    expect(slashOnly.lookup("POST", "/v1/images/render/")).toMatchObject({ type: "route" });
    expect(slashOnly.lookup("POST", "/v1/images/Render")).toMatchObject({ type: "ambiguous" });
  });
});
