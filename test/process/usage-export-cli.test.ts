import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { latchkey, latchkeyStatus, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";

vi.setConfig({ testTimeout: 120_000 });

/**
 * `latchkey usage export` as an operator runs it: beside the database, and with `--url` through a real
 * server process's `/v1/admin/usage/export`, both the platform's export with external_id.
 */

const HOUR = 3_600_000;

test("usage export: the same rows remotely (--url) and beside the database; bad ranges exit 2", async () => {
  const dir = tempDir();
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}`, LATCHKEY_BOOTSTRAP: "off" };
  const { organization, key } = JSON.parse(
    (await latchkey(["org", "create", "--name", "acme", "--json"], env)).stdout,
  );
  const token = JSON.parse(
    (
      await latchkey(
        ["service-token", "create", "--name", "billing", "--scope", "authorize,provision", "--json"],
        env,
      )
    ).stdout,
  ).token as string;
  const hour = Math.floor(Date.now() / HOUR) * HOUR;
  const from = new Date(hour - HOUR).toISOString();
  const to = new Date(hour + 2 * HOUR).toISOString();

  const server = await startServer(env, await freePort());
  const headers = { "content-type": "application/json", "x-latchkey-service-token": token };
  const renamed = await fetch(`${server.baseUrl}/v1/admin/organizations/${organization.id}`, {
    method: "PATCH",
    headers,
    body: JSON.stringify({ external_id: "cus_7" }),
  });
  expect(renamed.status).toBe(200);
  const authorization = `Basic ${Buffer.from(`${key.api_id}:${key.api_key}`).toString("base64")}`;
  const decision = await fetch(`${server.baseUrl}/v1/authorize`, {
    method: "POST",
    headers,
    body: JSON.stringify({ authorization, permission: "images:create", credits: 2 }),
  });
  expect(((await decision.json()) as { allowed: boolean }).allowed).toBe(true);

  const remote = await latchkey(
    ["usage", "export", "--url", server.baseUrl, "--from", from, "--to", to, "--format", "csv"],
    { ...env, LATCHKEY_SERVICE_TOKEN: token },
  );
  const lines = remote.stdout.split("\r\n");
  expect(lines[0]).toBe("organization_id,start,end,images,decisions_allowed,decisions_refused,external_id");
  expect(lines[1]).toMatch(new RegExp(`^${organization.id},\\S+Z,\\S+Z,2,1,0,cus_7$`));
  expect(lines.slice(2)).toEqual([""]);

  // The remote export wrote the server's counts first: the database beside it has them.
  const output = join(dir, "usage.ndjson");
  await latchkey(["usage", "export", "--from", from, "--to", to, "--output", output], env);
  const rows = readFileSync(output, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(rows).toEqual([
    expect.objectContaining({
      organization_id: organization.id,
      external_id: "cus_7",
      images: 2,
      decisions: { allowed: 1, refused: 0 },
    }),
  ]);

  const local = await latchkeyStatus(
    ["usage", "export", "--from", from, "--to", "2030-01-01T00:00:00Z"],
    env,
  );
  expect(local.code).toBe(2);
  expect(local.stderr).toContain("31 days");
  const far = await latchkeyStatus(
    ["usage", "export", "--url", server.baseUrl, "--from", "2026-11-01T00:30:00Z", "--to", to],
    { ...env, LATCHKEY_SERVICE_TOKEN: token },
  );
  expect(far.code).toBe(2);
  expect(far.stderr).toContain("not on the hour");
  const unknownFormat = await latchkeyStatus(
    ["usage", "export", "--from", from, "--to", to, "--format", "xml"],
    env,
  );
  expect(unknownFormat.code).toBe(2);
});
