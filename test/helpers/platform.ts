import type { LightMyRequestResponse } from "fastify";
import { buildTestApp, type TestApp, type TestAppOptions, type TestKey } from "./build-test-app.js";

/** An app with one organization's owner key and a service token for the platform's services. */
export interface PlatformApp {
  testApp: TestApp;
  owner: TestKey;
  /** A valid service token (`lkst_...`). */
  serviceToken: string;
  /** `POST /v1/authorize` with the service token (or `token`, or none when null) and this JSON body. */
  authorize(body: unknown, token?: string | null): Promise<LightMyRequestResponse>;
}

export async function platformApp(options: TestAppOptions = {}): Promise<PlatformApp> {
  const testApp = await buildTestApp(options);
  const owner = await testApp.createOrganization();
  const { token: serviceToken } = await testApp.services.serviceTokens.create("tests");
  return {
    testApp,
    owner,
    serviceToken,
    authorize(body, token = serviceToken) {
      return testApp.app.inject({
        method: "POST",
        url: "/v1/authorize",
        headers: token === null ? {} : { "x-latchkey-service-token": token },
        payload: body as Record<string, unknown>,
      });
    },
  };
}

/** The credits used so far in an organization's current billing period, read from the database. */
export async function creditsUsed(testApp: TestApp, orgId: string): Promise<number> {
  const report = await testApp.services.usage.report(orgId);
  return report.perBillingPeriod.at(-1)?.totalImages ?? 0;
}
