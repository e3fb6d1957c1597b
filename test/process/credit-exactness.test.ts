import { join } from "node:path";
import { expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { authorizeOver, parseFirstStart, tally } from "../helpers/platform-http.js";
import { latchkey, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";

/**
 * The embedded default, as `npm start` runs it: one process over SQLite, 200 callers at once over
 * real HTTP, each wanting 1 credit of an allowance of 50.
 */
test("200 concurrent consumers of 1 credit against 50 on SQLite: exactly 50 allowed; overages on: all counted", async () => {
  const env = { LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` };
  const server = await startServer(env, await freePort());
  const { authorization, serviceToken } = parseFirstStart(server.stderr());
  const consume = () =>
    authorizeOver(server.baseUrl, serviceToken, { authorization, permission: "images:create", credits: 1 });

  const burst = await Promise.all(Array.from({ length: 200 }, consume));
  expect(burst.every((reply) => reply.status === 200)).toBe(true);
  expect(tally(burst)).toEqual({ allowed: 50, plan_limit_exceeded: 150 });
  // Each allowed answer saw a distinct running total: the 50 consumptions were serialized.
  const used = burst.filter((r) => r.body.allowed).map((r) => Number(r.body.headers["x-renders-used"]));
  expect(new Set(used).size).toBe(50);
  expect(Math.max(...used)).toBe(50);

  // A second organization whose operator turned overages on (the CLI, another process, the same
  // database): all 200 are allowed, and all 200 are counted.
  const { stdout } = await latchkey(["org", "create", "--name", "heavy", "--json"], env);
  const heavy = JSON.parse(stdout) as {
    organization: { id: string };
    key: { api_id: string; api_key: string };
  };
  const plan = await latchkey(
    ["org", "plan", "--org", heavy.organization.id, "--overages", "on", "--json"],
    env,
  );
  expect(JSON.parse(plan.stdout)).toMatchObject({ image_credits: 50, overages: true });
  const heavyAuth = basicAuth(heavy.key.api_id, heavy.key.api_key).authorization;
  const overages = await Promise.all(
    Array.from({ length: 200 }, () =>
      authorizeOver(server.baseUrl, serviceToken, {
        authorization: heavyAuth,
        permission: "images:create",
        credits: 1,
      }),
    ),
  );
  expect(tally(overages)).toEqual({ allowed: 200 });
  const heavyUsed = overages.map((r) => Number(r.body.headers["x-renders-used"]));
  expect(new Set(heavyUsed).size).toBe(200);
  const usage = await fetch(`${server.baseUrl}/v1/usage`, { headers: { authorization: heavyAuth } });
  const report = (await usage.json()) as { per_billing_period: { total_images: number }[] };
  expect(report.per_billing_period.at(-1)?.total_images).toBe(200);
  // And the first organization's total did not move.
  const first = await fetch(`${server.baseUrl}/v1/usage`, { headers: { authorization } });
  expect(((await first.json()) as typeof report).per_billing_period.at(-1)?.total_images).toBe(50);
  server.child.kill("SIGTERM");
  expect(await server.exited).toBe(0);
}, 60_000);
