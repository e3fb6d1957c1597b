import type { LightMyRequestResponse } from "fastify";
import { buildTestApp, type TestApp, type TestAppOptions } from "./build-test-app.js";

/** An app with a `provision` service token, for the `/v1/admin` routes. */
export interface AdminApp {
  testApp: TestApp;
  /** A token with the `provision` scope only. */
  token: string;
  /** Its id (`stk_...`), the audit actor `service_token:<id>`. */
  tokenId: string;
  /** Sends an admin request with the token (or `token`, or none when null). */
  admin(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    url: string,
    body?: unknown,
    options?: { token?: string | null; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
}

export async function adminApp(options: TestAppOptions = {}): Promise<AdminApp> {
  const testApp = await buildTestApp(options);
  const { record, token } = await testApp.services.serviceTokens.create("billing", undefined, ["provision"]);
  return {
    testApp,
    token,
    tokenId: record.id,
    admin(method, url, body, { token: sent = token, headers = {} } = {}) {
      return testApp.app.inject({
        method,
        url,
        headers: { ...(sent === null ? {} : { "x-latchkey-service-token": sent }), ...headers },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
    },
  };
}
