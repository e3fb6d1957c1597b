import { describe, test } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { freePort } from "../helpers/free-port.js";
import { sqliteOrganization, startServer } from "../helpers/processes.js";
import { expectRollOverlapHonoured } from "../helpers/roll-overlap.js";

/**
 * Two server processes over one SQLite file: a key rolled through one with a short overlap
 * authenticates with both secrets on both until the overlap ends, and the old secret is refused by
 * both on the first request after it.
 */
describe("rolling a key with overlap, two servers on one SQLite file", () => {
  test("both secrets work on both servers during the overlap; the old one is refused right after", async () => {
    const { env, owner } = await sqliteOrganization();
    const a = await startServer(env, await freePort());
    const b = await startServer(env, await freePort());
    await expectRollOverlapHonoured({
      writer: b.baseUrl,
      readers: [a.baseUrl, b.baseUrl],
      owner: basicAuth(owner.apiId, owner.secret),
      overlapSeconds: 3,
    });
  }, 120_000);
});
