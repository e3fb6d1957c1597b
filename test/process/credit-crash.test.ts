import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";
import { authorizeOver, parseFirstStart } from "../helpers/platform-http.js";
import { latchkey, startServer, tempDir } from "../helpers/processes.js";
import { freePort } from "../helpers/free-port.js";

/**
 * "A crash never loses an acknowledged consumption nor double-counts one": a server is killed with
 * SIGKILL in the middle of a burst of consumptions; after a restart over the same database the stored
 * total is at least what was acknowledged and at most that plus the requests that were in flight.
 */
async function crashDuringBurst(env: Record<string, string>): Promise<void> {
  const first = await startServer(env, await freePort());
  const { orgId, authorization, serviceToken } = parseFirstStart(first.stderr());
  await latchkey(["org", "plan", "--org", orgId, "--image-credits", "100000"], env);

  let acknowledged = 0;
  let answered = 0;
  let sent = 0;
  let killed = false;
  const worker = async () => {
    while (!killed) {
      sent += 1;
      try {
        const reply = await authorizeOver(first.baseUrl, serviceToken, {
          authorization,
          permission: "images:create",
          credits: 1,
        });
        answered += 1;
        if (reply.body.allowed) acknowledged += 1;
        // Kill once enough were acknowledged, while the other workers' requests are in flight.
        if (acknowledged >= 150 && !killed) {
          killed = true;
          first.child.kill("SIGKILL");
        }
      } catch {
        return; // the connection died with the server: this request was in flight
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await first.exited;
  const inFlight = sent - answered;
  expect(acknowledged).toBeGreaterThanOrEqual(150);

  const second = await startServer(env, await freePort());
  const usage = await fetch(`${second.baseUrl}/v1/usage`, { headers: { authorization } });
  const report = (await usage.json()) as {
    data: { hour: Record<string, number> };
    per_billing_period: { total_images: number }[];
  };
  const stored = report.per_billing_period.at(-1)?.total_images ?? -1;
  expect(stored).toBeGreaterThanOrEqual(acknowledged);
  expect(stored).toBeLessThanOrEqual(acknowledged + inFlight);
  // The hourly history was written in the same transaction: it agrees with the total.
  expect(Object.values(report.data.hour).reduce((a, b) => a + b, 0)).toBe(stored);
  // And the counting goes on from there.
  const next = await authorizeOver(second.baseUrl, serviceToken, {
    authorization,
    permission: "images:create",
    credits: 1,
  });
  expect(next.body.headers["x-renders-used"]).toBe(String(stored + 1));
  second.child.kill("SIGTERM");
  await second.exited;
}

test("SQLite: SIGKILL during a burst of consumptions: every acknowledged credit is stored, none twice", async () => {
  await crashDuringBurst({ LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}` });
}, 60_000);

describeWithServices(["postgres"], "a crash over PostgreSQL", ({ postgres }) => {
  test("SIGKILL during a burst of consumptions: every acknowledged credit is stored, none twice", async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    await crashDuringBurst({ LATCHKEY_DATABASE_URL: schema.url });
  }, 60_000);
});
