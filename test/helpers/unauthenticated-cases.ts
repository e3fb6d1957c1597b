import type { TestApp, TestKey } from "./build-test-app.js";
import { basicAuth } from "./build-test-app.js";
import { seedDisable, seedKey } from "./http-keys.js";

/** What the unauthenticated cases need: an organization's owner and a second key of it. */
export interface CredentialSetup {
  testApp: TestApp;
  owner: TestKey;
  /** Another key of the owner's organization (its secret is used with the owner's api_id). */
  other: TestKey;
}

const base64 = (text: string) => Buffer.from(text).toString("base64");

/**
 * Ways of failing authentication, shared by every suite of security cases (keys, resource families):
 * each builds the Authorization header (or none). All must give the same 401.
 */
export const UNAUTHENTICATED: Array<{
  label: string;
  headers: (s: CredentialSetup) => Promise<Record<string, string>>;
}> = [
  { label: "no credentials", headers: async () => ({}) },
  {
    label: "a real api_id with another key's secret",
    headers: async (s) => basicAuth(s.owner.apiId, s.other.secret),
  },
  {
    label: "an unknown api_id",
    headers: async (s) => basicAuth("lkid_0000000000000000000000", s.owner.secret),
  },
  { label: "an empty password", headers: async (s) => basicAuth(s.owner.apiId, "") },
  { label: "a Bearer token", headers: async (s) => ({ authorization: `Bearer ${s.owner.secret}` }) },
  { label: "Basic with bad base64", headers: async () => ({ authorization: "Basic !!not*base64!!" }) },
  {
    label: "Basic without a colon",
    headers: async (s) => ({ authorization: `Basic ${base64(`${s.owner.apiId}${s.owner.secret}`)}` }),
  },
  {
    label: "a disabled key holding every permission",
    headers: async (s) => {
      const key = await seedKey(s.testApp, s.owner, { permissions: [], all_future_permissions: true });
      await seedDisable(s.testApp, s.owner, key);
      return key.headers;
    },
  },
];
