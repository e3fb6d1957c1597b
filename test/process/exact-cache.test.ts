import { describe, expect, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { expectChangeSeenAtOnce } from "../helpers/change-under-load.js";
import { freePort } from "../helpers/free-port.js";
import { latchkey, type ServerProcess, sqliteOrganization, startServer } from "../helpers/processes.js";

const REPETITIONS = 8;

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/**
 * latchkey caches the records every request reads; on SQLite the cache is checked against the file's
 * `PRAGMA data_version`. Two server processes and the CLI share one file: a change made by any of them
 * is seen by the others on the very next request, under load.
 */
describe("exact caches over one SQLite file shared by two servers and the CLI", () => {
  async function setUp() {
    const { env, orgId, owner } = await sqliteOrganization();
    const servers: ServerProcess[] = [];
    for (let i = 0; i < 2; i++) servers.push(await startServer(env, await freePort()));
    const [a, b] = servers as [ServerProcess, ServerProcess];
    return { env, orgId, owner: basicAuth(owner.apiId, owner.secret), a, b };
  }

  test(`a key disabled through server B is refused by server A on the next request (${REPETITIONS} times)`, async () => {
    const { owner, a, b } = await setUp();
    for (let i = 0; i < REPETITIONS; i++) {
      const created = await json(
        await fetch(`${b.baseUrl}/v1/api-keys`, {
          method: "POST",
          headers: { ...owner, "content-type": "application/json" },
          body: JSON.stringify({ permissions: ["api_keys:read"] }),
        }),
      );
      const auth = basicAuth(created.api_id as string, created.api_key as string);
      await expectChangeSeenAtOnce({
        readers: [a.baseUrl, b.baseUrl],
        request: (base) => fetch(`${base}/v1/api-keys/${created.id as string}`, { headers: auth }),
        before: 200,
        after: 401,
        change: async () => {
          const response = await fetch(`${b.baseUrl}/v1/api-keys/${created.id as string}`, {
            method: "DELETE",
            headers: owner,
          });
          expect(response.status).toBe(204);
        },
      });
    }
  }, 120_000);

  test("a service token revoked and a plan changed with the CLI are seen by both servers at once", async () => {
    const { env, orgId, owner, a, b } = await setUp();
    const made = await latchkey(["service-token", "create", "--name", "images", "--json"], env);
    const token = JSON.parse(made.stdout) as { id: string; token: string };
    const authorize = (base: string, credits?: number) =>
      fetch(`${base}/v1/authorize`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-latchkey-service-token": token.token },
        body: JSON.stringify({ authorization: owner.authorization, permission: "images:create", credits }),
      });
    const allowedWithCredit = async (base: string) => {
      const response = await authorize(base, 1);
      const body = await json(response);
      // 200 (allowed), or 429 once the plan's credits are gone: the status the platform would relay.
      return new Response(null, { status: body.status as number });
    };

    await latchkey(["org", "plan", "--org", orgId, "--image-credits", "1000000"], env);
    await expectChangeSeenAtOnce({
      readers: [a.baseUrl, b.baseUrl],
      request: allowedWithCredit,
      before: 200,
      after: 429,
      clients: 2,
      change: async () => {
        await latchkey(["org", "plan", "--org", orgId, "--image-credits", "0"], env);
      },
    });

    await expectChangeSeenAtOnce({
      readers: [a.baseUrl, b.baseUrl],
      request: (base) => authorize(base),
      before: 200,
      after: 401,
      change: async () => {
        await latchkey(["service-token", "revoke", token.id], env);
      },
    });
    const refused = await json(await authorize(a.baseUrl));
    expect(refused.code).toBe("invalid_service_token");
  }, 120_000);
});
