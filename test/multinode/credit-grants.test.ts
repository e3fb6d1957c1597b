import { randomBytes } from "node:crypto";
import { expect, onTestFinished, test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
import { grantsApp } from "../helpers/credit-grants-app.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

describeWithServices(["postgres", "redis"], "credit grants on two nodes", ({ postgres, redis }) => {
  test("60 concurrent one-credit requests on two nodes: exactly the allowance plus the grant are allowed", async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const env = {
      LATCHKEY_DATABASE_URL: schema.url,
      LATCHKEY_REDIS_URL: redis,
      LATCHKEY_REDIS_PREFIX: `lk_test_${randomBytes(6).toString("hex")}`,
    };
    const { grant, grants, render } = await grantsApp(10, { env });
    const second = await buildTestApp({ env });
    await grant({ credits: 15 });
    await grant({ credits: 5, expires_at: "2099-01-01T00:00:00Z" });
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => render(1, i % 2 === 0 ? undefined : second)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(30);
    // Every refusal is the plan limit (a failure shows what else came back).
    const refusals = decisions.filter((d) => !d.allowed).map((d) => d.error?.code ?? d.code);
    expect(refusals).toEqual(Array.from({ length: 30 }, () => "plan_limit_exceeded"));
    expect((await grants()).map((g: { remaining: number }) => g.remaining)).toEqual([0, 0]);
  });
});
