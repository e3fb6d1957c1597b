import { randomBytes } from "node:crypto";
import { expect, onTestFinished, test } from "vitest";
import { PROXIES } from "../../src/domain/resource-families.js";
import { basicAuth, buildTestApp } from "../helpers/build-test-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

/** Two nodes over one PostgreSQL and one Redis: the family quota and groups hold across them. */

describeWithServices(["postgres", "redis"], "resource families on two nodes", ({ postgres, redis }) => {
  // Seeding 995 rows over PostgreSQL takes a while on a loaded machine.
  test(
    "parallel creates on two nodes at 995 proxies: exactly 5 succeed; the write group is shared",
    { timeout: 120_000 },
    async () => {
      const schema = await createPostgresSchema(postgres);
      onTestFinished(() => schema.drop());
      const env = {
        LATCHKEY_DATABASE_URL: schema.url,
        LATCHKEY_REDIS_URL: redis,
        LATCHKEY_REDIS_PREFIX: `lk_test_${randomBytes(6).toString("hex")}`,
      };
      const first = await buildTestApp({ env });
      const second = await buildTestApp({ env });
      const owner = await first.createOrganization();
      const service = first.services.resources.proxies;
      for (let batch = 0; batch < 995; batch += 10) {
        await Promise.all(
          Array.from({ length: Math.min(10, 995 - batch) }, (_, i) =>
            service.create({ orgId: owner.orgId }, { name: `seed ${batch + i}` }),
          ),
        );
      }
      const headers = basicAuth(owner.apiId, owner.secret);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? first : second).app.inject({
            method: "POST",
            url: PROXIES.path,
            headers,
            payload: { name: `racer ${i}` },
          }),
        ),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([...Array(5).fill(200), ...Array(15).fill(409)]);
      // All 20 were admitted by the one shared proxy:write group (quota 20): the next is 429 on either node.
      for (const node of [first, second]) {
        const refused = await node.app.inject({
          method: "POST",
          url: PROXIES.path,
          headers,
          payload: { name: "x" },
        });
        expect(refused.statusCode).toBe(429);
        expect(refused.json().message).toContain("proxy:write");
      }
    },
  );

  test("a NUL or a lone surrogate is 400 on PostgreSQL, not 500, in the name and inside settings alike", async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const node = await buildTestApp({ env: { LATCHKEY_DATABASE_URL: schema.url } });
    const owner = await node.createOrganization();
    const send = (payload: Record<string, unknown>) =>
      node.app.inject({ method: "POST", url: PROXIES.path, headers: owner.headers, payload });
    const refused = await send({ name: "a\u0000b" });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().validation_errors).toEqual([expect.objectContaining({ path: "/name" })]);
    for (const settings of [{ k: "v\u0000" }, { odd: "\ud800" }]) {
      const inSettings = await send({ name: "ok", settings });
      expect(inSettings.statusCode).toBe(400);
      expect(inSettings.json().code).toBe("invalid_request");
    }
    const list = await node.app.inject({ method: "GET", url: PROXIES.path, headers: owner.headers });
    expect(list.json().data).toEqual([]);
  });
});
