import { afterAll, beforeAll, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { type ExampleGateway, startExampleGateway } from "../helpers/example-gateway.js";
import type { EchoUpstream, RunningCaddy } from "../helpers/gateway.js";
import type { ServerProcess } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";

// The review's finding, through the unmodified examples/Caddyfile: with a render route and a permissive
// `/v1/images/**` route, a key holding only images:read reached the render handler of an upstream that
// reads paths as Express does (case and a trailing slash ignored) by asking for /v1/images/render/ or
// /v1/images/RENDER, with no credit charged. Such a path is now 400 and never reaches the upstream.
const ROUTES = [
  { method: "POST", path: "/v1/images/render", permission: "images:create", credits: 1 },
  { method: "*", path: "/v1/images/**", permission: "images:read" },
  // The same shape, the render route saying its upstream ignores case and a trailing slash.
  {
    method: "POST",
    path: "/v1/templates/render",
    permission: "templates:create_update",
    case_insensitive: true,
    trailing_slash: true,
  },
  { method: "*", path: "/v1/templates/**", permission: "templates:read" },
];

describeWithServices(
  ["caddy"],
  "forward-auth paths as the upstream reads them, through a real Caddy",
  ({ caddy }) => {
    let upstream: EchoUpstream;
    let server: ServerProcess;
    let gateway: RunningCaddy;
    let owner: string;

    async function keyOf(permissions: string[]): Promise<string> {
      const response = await fetch(`${server.baseUrl}/v1/api-keys`, {
        method: "POST",
        headers: { authorization: owner, "content-type": "application/json" },
        body: JSON.stringify({ name: `holds ${permissions.join(" ")}`, permissions }),
      });
      const key = (await response.json()) as { api_id: string; api_key: string };
      expect(response.status, JSON.stringify(key)).toBe(200);
      return basicAuth(key.api_id, key.api_key).authorization;
    }

    const post = (path: string, authorization: string) =>
      fetch(`${gateway.baseUrl}${path}`, { method: "POST", headers: { authorization } });

    let stack: ExampleGateway;
    beforeAll(async () => {
      stack = await startExampleGateway(caddy, ROUTES);
      ({ server, upstream, gateway, owner } = stack);
    }, 90_000);

    afterAll(() => stack?.stop());

    test("an images:read key: 403 on the render path, 400 on its trailing-slash and upper-case forms, the upstream reached by none", async () => {
      const reader = await keyOf(["images:read"]);
      const before = upstream.received.length;
      const exact = await post("/v1/images/render", reader);
      expect(exact.status).toBe(403);
      expect(await exact.json()).toMatchObject({ code: "missing_permission" });
      for (const path of ["/v1/images/render/", "/v1/images/RENDER", "/v1/IMAGES/render"]) {
        const answer = await post(path, reader);
        const body = (await answer.json()) as { code: string; message: string };
        expect(answer.status, `${path}: ${JSON.stringify(body)}`).toBe(400);
        expect(body.code).toBe("invalid_request");
        expect(body.message).toContain("route 1 (POST /v1/images/render)");
        expect(body.message).toContain("docs/gateways.md");
      }
      expect(upstream.received).toHaveLength(before);
      // What the permissive route is for still passes.
      const other = await post("/v1/images/other", reader);
      expect(other.status).toBe(200);
      expect(upstream.received.at(-1)?.url).toBe("/v1/images/other");
    });

    test("a route marked case_insensitive and trailing_slash checks its own permission on every form", async () => {
      const reader = await keyOf(["templates:read"]);
      const writer = await keyOf(["templates:read", "templates:create_update"]);
      for (const path of ["/v1/templates/render", "/v1/templates/render/", "/v1/templates/RENDER"]) {
        const refused = await post(path, reader);
        expect(refused.status, path).toBe(403);
        expect(await refused.json()).toMatchObject({ code: "missing_permission" });
        const before = upstream.received.length;
        const allowed = await post(path, writer);
        expect(allowed.status, path).toBe(200);
        expect(upstream.received).toHaveLength(before + 1);
        expect(upstream.received.at(-1)?.url).toBe(path);
      }
    });
  },
);
