import type { AddressInfo } from "node:net";
import { LatchkeyClient, type LatchkeyClientOptions } from "@latchkey/client";
import type { RateLimitGroup } from "../../src/domain/rate-limit-groups.js";
import { buildTestApp, type FakeClock, type TestApp, type TestKey } from "../helpers/build-test-app.js";

/** A latchkey server listening on 127.0.0.1 over real HTTP, closed when the test ends. */
export interface RealServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The in-process app, for reaching the store directly. */
  test: TestApp;
  /** Creates an organization and returns its all-future owner key. */
  owner(name?: string): Promise<TestKey>;
  /** A client acting as `key`, with fast retries unless told otherwise. */
  clientFor(key: { apiId: string; secret: string }, options?: Partial<LatchkeyClientOptions>): LatchkeyClient;
  /** Raises an organization's quota of one group, so a test can make many requests. */
  setQuota(orgId: string, group: RateLimitGroup, quota: number): Promise<void>;
  /** Creates a service token (as `latchkey service-token create` does) and returns it with its id. */
  serviceToken(name?: string): Promise<{ id: string; token: string }>;
  /** A client holding only a service token, as a platform service has. */
  platformClient(serviceToken: string, options?: Partial<LatchkeyClientOptions>): LatchkeyClient;
}

/**
 * Starts a server the way the tests of the client need it: real sockets (the client uses fetch, not
 * `inject`), its own in-memory database, `env` overrides such as a short rate window, and a fake clock
 * when the test moves time itself.
 */
export async function startRealServer(
  env: Record<string, string> = {},
  clock?: FakeClock,
): Promise<RealServer> {
  const test = await buildTestApp({ env: { LATCHKEY_LOG_LEVEL: "warn", ...env }, clock });
  await test.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = test.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    test,
    owner: (name) => test.createOrganization(name),
    clientFor: (key, options = {}) =>
      new LatchkeyClient({
        baseUrl: url,
        apiId: key.apiId,
        apiKey: key.secret,
        retryJitterMs: 50,
        ...options,
      }),
    setQuota: (orgId, group, quota) => test.services.store.setQuota(orgId, group, quota),
    async serviceToken(name = "images") {
      const { record, token } = await test.services.serviceTokens.create(name);
      return { id: record.id, token };
    },
    platformClient: (serviceToken, options = {}) =>
      new LatchkeyClient({ baseUrl: url, serviceToken, retryJitterMs: 50, ...options }),
  };
}
