import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { newSecret } from "../../src/domain/credentials.js";
import { basicAuth, buildTestApp, type TestApp, type TestKey } from "../helpers/build-test-app.js";
import { githubScanner, type GithubScanner, writeScanningKeys } from "../helpers/github-scanner.js";
import { keyWith } from "../helpers/http-keys.js";
import { sampleValue } from "../helpers/metrics-page.js";
import { tempDir } from "../helpers/processes.js";

const URL_PATH = "/v1/secret-scanning/github";
const LEAK_URL = "https://github.com/octocat/hello-world/blob/main/config.js#L3";

async function scanningApp(env: Record<string, string> = {}) {
  const scanner = githubScanner();
  const keysFile = writeScanningKeys(tempDir(), scanner);
  const testApp = await buildTestApp({ env: { LATCHKEY_SECRET_SCANNING_KEYS: keysFile, ...env } });
  const owner = await testApp.createOrganization();
  // A second key that reads keys and the trail, to look at the owner's record after it is disabled.
  const reader = await keyWith(testApp, owner, ["api_keys:read", "audit:read"]);
  return { testApp, scanner, owner, reader };
}

function report(testApp: TestApp, body: string, headers: Record<string, string>) {
  return testApp.app.inject({ method: "POST", url: URL_PATH, headers, payload: body });
}

function matchesOf(...tokens: string[]): string {
  return matchesAt(LEAK_URL, ...tokens);
}

function matchesAt(url: string, ...tokens: string[]): string {
  return JSON.stringify(tokens.map((token) => ({ token, type: "latchkey_api_key", url, source: "content" })));
}

async function selfRead(testApp: TestApp, key: TestKey) {
  return testApp.app.inject({ url: `/v1/api-keys/${key.id}`, headers: key.headers });
}

async function recordOf(testApp: TestApp, reader: TestKey, id: string) {
  const response = await testApp.app.inject({ url: `/v1/api-keys/${id}`, headers: reader.headers });
  return response.json();
}

describe("POST /v1/secret-scanning/github", () => {
  test("is not there (404) unless LATCHKEY_SECRET_SCANNING_KEYS is set", async () => {
    const testApp = await buildTestApp();
    const response = await report(testApp, "[]", { "content-type": "application/json" });
    expect(response.statusCode).toBe(404);
  });

  test("a leaked secret disables its key, refused on the very next request; others are false positives", async () => {
    const { testApp, scanner, owner, reader } = await scanningApp();
    expect((await selfRead(testApp, owner)).statusCode).toBe(200);
    const strangerSecret = newSecret(); // a valid checksum, but no key's secret
    const body = matchesOf(owner.secret, strangerSecret, "lksk_not_a_secret", "ghp_somethingElse");
    const response = await report(testApp, body, scanner.headersFor(body));

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { token_raw: owner.secret, token_type: "latchkey_api_key", label: "true_positive" },
      { token_raw: strangerSecret, token_type: "latchkey_api_key", label: "false_positive" },
      { token_raw: "lksk_not_a_secret", token_type: "latchkey_api_key", label: "false_positive" },
      { token_raw: "ghp_somethingElse", token_type: "latchkey_api_key", label: "false_positive" },
    ]);
    const next = await selfRead(testApp, owner);
    expect(next.statusCode).toBe(401);
    expect(next.json().code).toBe("unauthorized");

    const record = await recordOf(testApp, reader, owner.id);
    expect(record).toMatchObject({ enabled: false, leaked_at: expect.any(String) });
    // The reader itself was not reported: untouched.
    expect(await recordOf(testApp, reader, reader.id)).toMatchObject({ enabled: true, leaked_at: null });

    const trail = await testApp.app.inject({ url: "/v1/audit?count=1", headers: reader.headers });
    expect(trail.json().data[0]).toMatchObject({
      action: "key.leaked",
      actor: "secret_scanning",
      target_id: owner.id,
      before: { enabled: true },
      after: { enabled: false, leak: { url: LEAK_URL, source: "content", type: "latchkey_api_key" } },
    });
    expect(trail.body).not.toContain(owner.secret);

    const metrics = await testApp.app.inject({ url: "/metrics" });
    expect(sampleValue(metrics.body, "latchkey_leaked_keys_total", { action: "disabled" })).toBe(1);
  });

  test("LATCHKEY_LEAKED_KEYS=flag only marks the key: it keeps working, leaked_at is set", async () => {
    const { testApp, scanner, owner, reader } = await scanningApp({ LATCHKEY_LEAKED_KEYS: "flag" });
    const body = matchesOf(owner.secret);
    const response = await report(testApp, body, scanner.headersFor(body));
    expect(response.json()).toEqual([
      { token_raw: owner.secret, token_type: "latchkey_api_key", label: "true_positive" },
    ]);
    expect((await selfRead(testApp, owner)).statusCode).toBe(200);
    const record = await recordOf(testApp, reader, owner.id);
    expect(record.enabled).toBe(true);
    expect(Date.parse(record.leaked_at)).not.toBeNaN();

    // A second report (another place) keeps the first leaked_at and is audited again.
    const elsewhere = matchesAt(`${LEAK_URL}0`, owner.secret);
    const again = await report(testApp, elsewhere, scanner.headersFor(elsewhere));
    expect(again.statusCode).toBe(200);
    expect((await recordOf(testApp, reader, owner.id)).leaked_at).toBe(record.leaked_at);
    const metrics = await testApp.app.inject({ url: "/metrics" });
    expect(sampleValue(metrics.body, "latchkey_leaked_keys_total", { action: "flagged" })).toBe(2);
  });

  test("a rolled key's previous secret, leaked during the overlap, disables the key", async () => {
    const { testApp, scanner, owner, reader } = await scanningApp();
    const rolled = await keyWith(testApp, owner, ["images:read"]);
    const roll = await testApp.app.inject({
      method: "POST",
      url: `/v1/api-keys/${rolled.id}/roll`,
      headers: owner.headers,
      payload: { overlap_seconds: 604800 },
    });
    expect(roll.statusCode).toBe(200);
    expect((await selfRead(testApp, rolled)).statusCode).not.toBe(401);
    const body = matchesOf(rolled.secret);
    const response = await report(testApp, body, scanner.headersFor(body));
    expect(response.json()).toEqual([
      { token_raw: rolled.secret, token_type: "latchkey_api_key", label: "true_positive" },
    ]);
    expect(await recordOf(testApp, reader, rolled.id)).toMatchObject({
      enabled: false,
      leaked_at: expect.any(String),
    });
    expect((await selfRead(testApp, rolled)).statusCode).toBe(401);
  });

  test("flagged: a leaked previous secret stops working at once, the new one keeps working", async () => {
    const { testApp, scanner, owner, reader } = await scanningApp({ LATCHKEY_LEAKED_KEYS: "flag" });
    const rolled = await keyWith(testApp, owner, ["api_keys:read"]);
    const roll = await testApp.app.inject({
      method: "POST",
      url: `/v1/api-keys/${rolled.id}/roll`,
      headers: owner.headers,
      payload: { overlap_seconds: 3600 },
    });
    const fresh = basicAuth(roll.json().api_id, roll.json().api_key);
    const body = matchesOf(rolled.secret);
    const response = await report(testApp, body, scanner.headersFor(body));
    expect(response.json()[0].label).toBe("true_positive");
    expect((await selfRead(testApp, rolled)).statusCode).toBe(401);
    const withNew = await testApp.app.inject({ url: `/v1/api-keys/${rolled.id}`, headers: fresh });
    expect(withNew.statusCode).toBe(200);
    expect(await recordOf(testApp, reader, rolled.id)).toMatchObject({
      enabled: true,
      leaked_at: expect.any(String),
    });
  });

  test("a report already processed is answered as before and changes nothing: a replay cannot disable a re-enabled key", async () => {
    const { testApp, scanner, owner, reader } = await scanningApp();
    const victim = await keyWith(testApp, owner, ["images:read"]);
    const body = matchesOf(victim.secret, newSecret());
    const headers = scanner.headersFor(body);
    const first = await report(testApp, body, headers);
    expect(first.statusCode).toBe(200);
    expect((await recordOf(testApp, reader, victim.id)).enabled).toBe(false);
    // Its owner looks, decides the leak was harmless and turns the key back on.
    const current = await recordOf(testApp, reader, victim.id);
    const enable = await testApp.app.inject({
      method: "POST",
      url: `/v1/api-keys/${victim.id}`,
      headers: owner.headers,
      payload: { name: current.name, permissions: current.permissions, disabled: false },
    });
    expect(enable.statusCode).toBe(200);
    const trailBefore = (await testApp.app.inject({ url: "/v1/audit", headers: reader.headers })).json().data
      .length;
    const replay = await report(testApp, body, headers);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual(first.json());
    expect((await recordOf(testApp, reader, victim.id)).enabled).toBe(true);
    expect((await selfRead(testApp, victim)).statusCode).not.toBe(401);
    const trailAfter = (await testApp.app.inject({ url: "/v1/audit", headers: reader.headers })).json().data
      .length;
    expect(trailAfter).toBe(trailBefore);
    const metrics = await testApp.app.inject({ url: "/metrics" });
    expect(sampleValue(metrics.body, "latchkey_leaked_keys_total", { action: "disabled" })).toBe(1);
  });

  test("with a pepper, the secret is looked up by its HMAC, as authentication does", async () => {
    const { testApp, scanner, owner } = await scanningApp({
      LATCHKEY_SECRET_PEPPER: "a-pepper-of-16-characters",
    });
    const body = matchesOf(owner.secret);
    const response = await report(testApp, body, scanner.headersFor(body));
    expect(response.json()[0].label).toBe("true_positive");
    expect((await selfRead(testApp, owner)).statusCode).toBe(401);
  });
});

describe("POST /v1/secret-scanning/github refuses reports it cannot verify (401), changing nothing", () => {
  const cases: Array<
    [string, (scanner: GithubScanner, stranger: GithubScanner, body: string) => Record<string, string>]
  > = [
    ["no signature headers", () => ({ "content-type": "application/json" })],
    [
      "no signature",
      (scanner) => ({
        "content-type": "application/json",
        "github-public-key-identifier": scanner.keyIdentifier,
      }),
    ],
    ["an unknown key identifier", (scanner, _stranger, body) => scanner.headersFor(body, "not-a-known-key")],
    // Another party's key under GitHub's identifier: a wrong signature.
    ["a wrong signature", (scanner, stranger, body) => stranger.headersFor(body, scanner.keyIdentifier)],
    [
      "a signature of another body (the body changed after signing)",
      (scanner, _stranger, body) => scanner.headersFor(body.replace("content", "commit")),
    ],
    [
      "a signature that is not base64 DER",
      (scanner) => ({
        "content-type": "application/json",
        "github-public-key-identifier": scanner.keyIdentifier,
        "github-public-key-signature": "MEUCIQ==",
      }),
    ],
  ];

  test.each(cases)("%s", async (_label, headersOf) => {
    const { testApp, scanner, owner, reader } = await scanningApp();
    const body = matchesOf(owner.secret);
    const response = await report(testApp, body, headersOf(scanner, githubScanner(), body));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.stringContaining("GITHUB-PUBLIC-KEY"),
      code: "invalid_signature",
    });
    expect((await selfRead(testApp, owner)).statusCode).toBe(200);
    expect((await recordOf(testApp, reader, owner.id)).leaked_at).toBeNull();
  });

  test("a signed body that is not a report is a 400, after the signature", async () => {
    const { testApp, scanner } = await scanningApp();
    for (const body of ['{"token":"x"}', '[{"type":"t"}]', "[1", '[{"token":5,"type":"t"}]']) {
      const response = await report(testApp, body, scanner.headersFor(body));
      expect(response.statusCode, body).toBe(400);
      expect(response.json().code).toBe("invalid_request");
    }
    // The same bad body unsigned is the 401: nothing is parsed before the signature is checked.
    expect((await report(testApp, "[1", { "content-type": "application/json" })).statusCode).toBe(401);
  });

  test("a keys file that is not GitHub's answer stops the start with a message naming it", async () => {
    const dir = tempDir();
    const cases: Array<[string, RegExp]> = [
      ["{not json", /LATCHKEY_SECRET_SCANNING_KEYS .*: not JSON/],
      ['{"public_keys": []}', /expected \{"public_keys"/],
      [
        '{"public_keys": [{"key_identifier": "k", "key": "not pem"}]}',
        /public_keys\[0\]\.key is not a PEM public key/,
      ],
    ];
    for (const [index, [text, message]] of cases.entries()) {
      const file = join(dir, `keys-${index}.json`);
      writeFileSync(file, text);
      await expect(buildTestApp({ env: { LATCHKEY_SECRET_SCANNING_KEYS: file } })).rejects.toThrow(message);
    }
    await expect(
      buildTestApp({ env: { LATCHKEY_SECRET_SCANNING_KEYS: join(dir, "absent.json") } }),
    ).rejects.toThrow(/LATCHKEY_SECRET_SCANNING_KEYS: cannot read/);
  });

  test("a key published but no longer current still verifies (GitHub rotates with an overlap)", async () => {
    const current = githubScanner("current");
    const previous = githubScanner("previous");
    const keysFile = writeScanningKeys(tempDir(), current, previous);
    const testApp = await buildTestApp({ env: { LATCHKEY_SECRET_SCANNING_KEYS: keysFile } });
    const owner = await testApp.createOrganization();
    const body = matchesOf(owner.secret);
    const response = await report(testApp, body, previous.headersFor(body));
    expect(response.statusCode).toBe(200);
    expect(response.json()[0].label).toBe("true_positive");
  });
});
