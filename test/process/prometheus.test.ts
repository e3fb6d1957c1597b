import { join } from "node:path";
import { expect, test, vi } from "vitest";
import { basicAuth } from "../helpers/build-test-app.js";
import { startServer, tempDir } from "../helpers/processes.js";
import { startThrowawayPrometheus } from "../helpers/prometheus-server.js";
import { freePort } from "../helpers/free-port.js";
import { describeWithServices } from "../helpers/services.js";

/**
 * The whole path an operator sets up: a real latchkey process, a real Prometheus scraping it every
 * second, and a PromQL query through Prometheus' HTTP API that finds the requests the test made.
 */
describeWithServices(["prometheus"], "a real Prometheus scrapes latchkey", ({ prometheus }) => {
  test(
    "the request counter of a called route reaches Prometheus with its labels",
    { timeout: 90_000 },
    async () => {
      const dir = tempDir();
      const server = await startServer(
        { LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}` },
        await freePort(),
      );
      const apiId = /api_id:\s+(\S+)/.exec(server.stderr())?.[1] as string;
      const secret = /api_key:\s+(\S+)/.exec(server.stderr())?.[1] as string;
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${server.baseUrl}/v1/api-keys`, { headers: basicAuth(apiId, secret) });
        expect(response.status).toBe(200);
      }
      expect((await fetch(`${server.baseUrl}/v1/api-keys`)).status).toBe(401);

      const target = new URL(server.baseUrl).host;
      const prom = await startThrowawayPrometheus(prometheus, dir, [target]);
      const series =
        'latchkey_http_requests_total{job="latchkey",method="GET",route="/v1/api-keys",status="200"}';
      const result = await vi.waitFor(
        async () => {
          const found = await prom.query(series);
          expect(found).toHaveLength(1);
          return found;
        },
        { timeout: 60_000, interval: 500 },
      );
      expect(result[0]?.metric).toMatchObject({ instance: target, route: "/v1/api-keys", status: "200" });
      expect(result[0]?.value[1]).toBe("3");
      const refused = await prom.query(
        'latchkey_access_decisions_total{surface="rest",outcome="unauthorized"}',
      );
      expect(refused.map((sample) => sample.value[1])).toEqual(["1"]);
      expect((await prom.query('up{job="latchkey"}')).map((sample) => sample.value[1])).toEqual(["1"]);

      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    },
  );
});
