import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type EchoUpstream, type RunningCaddy, startCaddy, startEchoUpstream } from "../helpers/gateway.js";
import { latchkey, type ServerProcess, startSuiteServer } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";
import { describeWithServices } from "../helpers/services.js";

// The bypasses of a forward-auth path, tried through a real Caddy in front of latchkey (examples/routes.json:
// `GET /v1/templates/**` needs templates:read, `GET /v1/proxies` proxies:read) and an echo upstream. Each
// one was once allowed with a key holding only templates:read, while a servlet container behind the
// gateway would have served /v1/proxies.
const examples = new URL("../../examples/", import.meta.url).pathname;

const basic = (apiId: string, secret: string) =>
  `Basic ${Buffer.from(`${apiId}:${secret}`).toString("base64")}`;

/** A latchkey process with its own SQLite database, a service token and a key holding templates:read. */
interface Latchkey {
  server: ServerProcess;
  token: string;
  /** `Authorization` of a key that holds only templates:read. */
  templatesReader: string;
}

async function startLatchkey(dir: string, env: Record<string, string> = {}): Promise<Latchkey> {
  mkdirSync(dir, { recursive: true });
  const dbEnv = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}` };
  const { key } = JSON.parse((await latchkey(["org", "create", "--name", "acme", "--json"], dbEnv)).stdout);
  const token = JSON.parse(
    (await latchkey(["service-token", "create", "--name", "caddy", "--json"], dbEnv)).stdout,
  ).token as string;
  const server = await startSuiteServer(
    { ...dbEnv, ...env, LATCHKEY_ROUTES: join(examples, "routes.json"), LATCHKEY_BOOTSTRAP: "off" },
    await freePort(),
  );
  const response = await fetch(`${server.baseUrl}/v1/api-keys`, {
    method: "POST",
    headers: { authorization: basic(key.api_id, key.api_key), "content-type": "application/json" },
    body: JSON.stringify({ name: "templates only", permissions: ["templates:read"] }),
  });
  const created = (await response.json()) as { api_id: string; api_key: string };
  expect(response.status, JSON.stringify(created)).toBe(200);
  return { server, token, templatesReader: basic(created.api_id, created.api_key) };
}

/**
 * A gateway that describes the original request in its own way: `describe` holds the `header_up` lines
 * of its auth request (the rest is examples/Caddyfile.forward_auth written out).
 */
function caddyfile(dir: string, name: string, describe: string[]): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `{
\tadmin off
}

{$SITE_ADDRESS} {
\troute {
\t\trequest_header -X-Latchkey-*
\t\treverse_proxy {$LATCHKEY_ADDRESS} {
\t\t\tmethod GET
\t\t\trewrite /v1/forward-auth
${describe.map((line) => `\t\t\t${line}`).join("\n")}
\t\t\theader_up X-Latchkey-Service-Token {$LATCHKEY_SERVICE_TOKEN}
\t\t\t@allowed status 2xx
\t\t\thandle_response @allowed {
\t\t\t\trequest_header X-Latchkey-Key-Id {rp.header.X-Latchkey-Key-Id}
\t\t\t}
\t\t}
\t\treverse_proxy {$UPSTREAM_ADDRESS}
\t}
}
`,
  );
  return file;
}

interface Answer {
  status: number;
  body: { statusCode?: number; code?: string; message?: string; url?: string };
}

/**
 * `GET path` sent exactly as written (no URL parsing, which would resolve dot segments and turn `\`
 * into `/`); a header given several values is sent once per value.
 */
function get(baseUrl: string, path: string, headers: Record<string, string | string[]>): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, method: "GET" }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: response.statusCode ?? 0, body: text === "" ? {} : JSON.parse(text) });
      });
    });
    for (const [name, value] of Object.entries(headers)) outgoing.setHeader(name, value);
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** U+FF0E as the three bytes of its UTF-8 form, one per character (how Node writes a request line). */
const FULL_WIDTH_DOT = "\u00ef\u00bc\u008e";

describeWithServices(["caddy"], "forward-auth paths and headers through a real Caddy", ({ caddy }) => {
  let dir: string;
  let upstream: EchoUpstream;
  /** Default settings: the X-Forwarded pair. */
  let forwarded: Latchkey;
  /** LATCHKEY_FORWARDED_HEADERS=x-original. */
  let original: Latchkey;
  const gateways: RunningCaddy[] = [];
  let example: RunningCaddy;
  let exampleShort: RunningCaddy;
  /** Sends X-Original-Method/-URI, as nginx recipes do, in front of the default latchkey. */
  let originalToDefault: RunningCaddy;
  /** The same, in front of the latchkey set to read that pair. */
  let originalToOriginal: RunningCaddy;
  /** Adds its X-Forwarded-Uri to the caller's instead of replacing it. */
  let appending: RunningCaddy;

  async function gateway(file: string, to: Latchkey, name: string): Promise<RunningCaddy> {
    const running = await startCaddy(
      caddy,
      file,
      {
        LATCHKEY_ADDRESS: new URL(to.server.baseUrl).host,
        UPSTREAM_ADDRESS: upstream.address,
        LATCHKEY_SERVICE_TOKEN: to.token,
      },
      join(dir, name),
    );
    gateways.push(running);
    return running;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "latchkey-paths-"));
    upstream = await startEchoUpstream();
    // One after the other: a busy machine starts two servers more slowly than one.
    forwarded = await startLatchkey(join(dir, "forwarded"));
    original = await startLatchkey(join(dir, "original"), { LATCHKEY_FORWARDED_HEADERS: "x-original" });
    const originalPair = caddyfile(dir, "original.Caddyfile", [
      "header_up X-Original-Method {method}",
      "header_up X-Original-URI {uri}",
    ]);
    const appendingFile = caddyfile(dir, "appending.Caddyfile", [
      "header_up X-Forwarded-Method {method}",
      "header_up +X-Forwarded-Uri {uri}",
    ]);
    [example, exampleShort, originalToDefault, originalToOriginal, appending] = await Promise.all([
      gateway(join(examples, "Caddyfile"), forwarded, "example"),
      gateway(join(examples, "Caddyfile.forward_auth"), forwarded, "short"),
      gateway(originalPair, forwarded, "original-default"),
      gateway(originalPair, original, "original-original"),
      gateway(appendingFile, forwarded, "appending"),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(gateways.map((running) => running.stop()));
    forwarded?.server.child.kill("SIGKILL");
    original?.server.child.kill("SIGKILL");
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Expects a 400 invalid_request whose message contains `reason`, and that the upstream saw nothing. */
  async function expectRefused(answer: Promise<Answer>, reason: string): Promise<void> {
    const before = upstream.received.length;
    const { status, body } = await answer;
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body).toMatchObject({ statusCode: 400, code: "invalid_request" });
    expect(body.message).toContain(reason);
    expect(upstream.received).toHaveLength(before);
  }

  describe("a path the upstream could read as /v1/proxies is refused, never allowed", () => {
    test.each([
      ["/v1/templates/a/..;/..;/proxies", "a ';'"],
      ["/v1/templates/a/..%3B/..%3B/proxies", "a ';' (encoded as %3B)"],
      ["/v1/templates/a/../../proxies", "a dot segment ('..')"],
      ["/v1/templates/a/%2e%2e/%2E%2E/proxies", "a dot segment ('..')"],
      [`/v1/templates/a/${FULL_WIDTH_DOT.repeat(2)}/${FULL_WIDTH_DOT.repeat(2)}/proxies`, "a full-width dot"],
      ["/v1/templates/a/%EF%BC%8E%EF%BC%8E/%EF%BC%8E%EF%BC%8E/proxies", "a full-width dot"],
      ["/v1/templates\\..\\..\\proxies", "'\\'"],
      ["/v1/templates/a%5C..%5C..%5Cproxies", "an encoded '\\' (%5C)"],
      ["/v1/templates/a%2F..%2F..%2Fproxies", "an encoded '/' (%2F)"],
      ["/v1/templates/%252e%252e/%252e%252e/proxies", "a double-encoded escape"],
      ["/v1/templates/a%00/../../proxies", "a NUL (%00)"],
    ])("%s: 400 naming %s", async (path, reason) => {
      for (const gateway of [example, exampleShort]) {
        await expectRefused(get(gateway.baseUrl, path, { authorization: forwarded.templatesReader }), reason);
      }
    });

    test("the plain path is allowed, and a query (whatever it holds) is neither matched nor refused", async () => {
      for (const path of ["/v1/templates/a", "/v1/templates/a?next=..;/../proxies&x=%2F%00"]) {
        const before = upstream.received.length;
        const answer = await get(example.baseUrl, path, { authorization: forwarded.templatesReader });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(upstream.received).toHaveLength(before + 1);
        expect(upstream.received.at(-1)?.url).toBe(path);
      }
      const proxies = await get(example.baseUrl, "/v1/proxies", { authorization: forwarded.templatesReader });
      expect(proxies.status).toBe(403);
      expect(proxies.body).toMatchObject({ code: "missing_permission" });
    });
  });

  describe("the original request comes from one header pair, each header once", () => {
    test("through the examples, a caller's X-Original-* is dropped: the real path is checked", async () => {
      for (const gateway of [example, exampleShort]) {
        const before = upstream.received.length;
        const answer = await get(gateway.baseUrl, "/v1/proxies", {
          authorization: forwarded.templatesReader,
          "x-original-method": "GET",
          "x-original-uri": "/v1/templates/a",
        });
        expect(answer.status).toBe(403);
        expect(answer.body).toMatchObject({ code: "missing_permission" });
        expect(upstream.received).toHaveLength(before);
      }
    });

    test("a gateway that sends X-Original-* to a latchkey reading X-Forwarded-*: the caller's X-Forwarded-Uri is never read, every request is 400", async () => {
      // Before: latchkey read X-Forwarded-Uri first, and this caller chose the path that was checked.
      const headers = {
        authorization: forwarded.templatesReader,
        "x-forwarded-method": "GET",
        "x-forwarded-uri": "/v1/templates/a",
      };
      await expectRefused(
        get(originalToDefault.baseUrl, "/v1/proxies", headers),
        "X-Original-Method/X-Original-URI",
      );
      await expectRefused(
        get(originalToDefault.baseUrl, "/v1/templates/a", { authorization: forwarded.templatesReader }),
        "LATCHKEY_FORWARDED_HEADERS=x-forwarded",
      );
    });

    test("with LATCHKEY_FORWARDED_HEADERS=x-original the same gateway works, and a caller's X-Forwarded-Uri is refused", async () => {
      const auth = { authorization: original.templatesReader };
      const before = upstream.received.length;
      expect((await get(originalToOriginal.baseUrl, "/v1/templates/a", auth)).status).toBe(200);
      expect(upstream.received).toHaveLength(before + 1);
      const proxies = await get(originalToOriginal.baseUrl, "/v1/proxies", auth);
      expect(proxies.status).toBe(403);
      await expectRefused(
        get(originalToOriginal.baseUrl, "/v1/proxies", { ...auth, "x-forwarded-uri": "/v1/templates/a" }),
        "X-Forwarded-Method/X-Forwarded-Uri",
      );
      await expectRefused(get(originalToOriginal.baseUrl, "/v1/templates/a/..;/..;/proxies", auth), "a ';'");
    });

    test("a gateway that appends X-Forwarded-Uri to the caller's: two headers, 400, never joined and matched", async () => {
      // Before: "/v1/templates/a, /v1/proxies" matched /v1/templates/** and was allowed.
      await expectRefused(
        get(appending.baseUrl, "/v1/proxies", {
          authorization: forwarded.templatesReader,
          "x-forwarded-uri": "/v1/templates/a",
        }),
        "repeats the",
      );
      const plain = await get(appending.baseUrl, "/v1/templates/a", {
        authorization: forwarded.templatesReader,
      });
      expect(plain.status).toBe(200);
    });

    test("two Authorization headers are refused, whichever one the upstream would read", async () => {
      await expectRefused(
        get(example.baseUrl, "/v1/templates/a", {
          authorization: [forwarded.templatesReader, basic("lkid_other", "lksk_other")],
        }),
        "repeats the",
      );
    });
  });
});
