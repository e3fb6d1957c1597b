import { join } from "node:path";
import { describe, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { freePort } from "../helpers/redis-server.js";
import { latchkey, startServer, tempDir } from "../helpers/processes.js";
import { expectRollOverlapHonoured } from "../helpers/roll-overlap.js";

/**
 * Two server processes over one SQLite file: a key rolled through one with a short overlap
 * authenticates with both secrets on both until the overlap ends, and the old secret is refused by
 * both on the first request after it.
 */
describe("rolling a key with overlap, two servers on one SQLite file", () => {
  test("both secrets work on both servers during the overlap; the old one is refused right after", async () => {
    const env = {
      LATCHKEY_DATABASE_URL: `sqlite:${join(tempDir(), "latchkey.db")}`,
      LATCHKEY_BOOTSTRAP: "off",
    };
    const { stdout } = await latchkey(["org", "create", "--name", "acme", "--json"], env);
    const created = JSON.parse(stdout) as {
      organization: { id: string };
      key: { api_id: string; api_key: string };
    };
    for (const group of ["api-key:read", "api-key:write"]) {
      await latchkey(
        ["org", "limits", "--org", created.organization.id, "--group", group, "--quota", "1000000"],
        env,
      );
    }
    const a = await startServer(env, await freePort());
    const b = await startServer(env, await freePort());
    await expectRollOverlapHonoured({
      writer: b.baseUrl,
      readers: [a.baseUrl, b.baseUrl],
      owner: basicAuth(created.key.api_id, created.key.api_key),
      overlapSeconds: 3,
    });
  }, 120_000);
});
