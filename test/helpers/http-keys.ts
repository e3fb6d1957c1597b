import type { InjectOptions, LightMyRequestResponse } from "fastify";
import type { KeyConfigurationInput } from "../../src/domain/key-configuration.js";
import type { KeyInput } from "../../src/services/key-service.js";
import type { Permission } from "../../src/domain/permissions.js";
import { basicAuth, type TestApp, type TestKey } from "./build-test-app.js";

/**
 * Shortcuts for the HTTP suites. Setup goes through the services (no HTTP request, no rate-limit slot) so
 * that each test spends its request budget only on the behaviour it checks.
 */

/** Creates a key in `owner`'s organization as `owner`, without an HTTP request. */
export async function seedKey(
  testApp: TestApp,
  owner: TestKey,
  input: KeyInput = { permissions: [] },
): Promise<TestKey> {
  const caller = await testApp.services.store.findKey(owner.orgId, owner.id);
  if (!caller) throw new Error(`seedKey: no key ${owner.id} in ${owner.orgId}`);
  const { key, secret } = await testApp.services.keys.create(caller, input);
  return { id: key.id, apiId: key.apiId, secret, orgId: key.orgId, headers: basicAuth(key.apiId, secret) };
}

/** Creates `count` keys one after the other (the fake clock, when given, moves 1 ms between them). */
export async function seedKeys(
  testApp: TestApp,
  owner: TestKey,
  count: number,
  input: KeyConfigurationInput = { permissions: [] },
): Promise<TestKey[]> {
  const keys: TestKey[] = [];
  for (let i = 0; i < count; i++) {
    testApp.clock?.advance(1);
    keys.push(await seedKey(testApp, owner, input));
  }
  return keys;
}

/** Disables a key without an HTTP request. */
export async function seedDisable(testApp: TestApp, owner: TestKey, key: TestKey): Promise<void> {
  const caller = await testApp.services.store.findKey(owner.orgId, owner.id);
  if (!caller) throw new Error(`seedDisable: no key ${owner.id}`);
  await testApp.services.keys.disable(caller, key.id);
}

/** A key holding exactly these permissions, created by the organization's owner. */
export function keyWith(
  testApp: TestApp,
  owner: TestKey,
  permissions: Permission[],
  extra: Omit<KeyInput, "permissions"> = {},
): Promise<TestKey> {
  return seedKey(testApp, owner, { name: `holds ${permissions.join(" ")}`, permissions, ...extra });
}

/** The parsed `RateLimit` header (`"<group>";r=<n>` with an optional `;t=<s>`), or undefined. */
export function rateLimitOf(
  response: LightMyRequestResponse,
): { group: string; remaining: number } | undefined {
  const header = response.headers.ratelimit;
  if (header === undefined) return undefined;
  const match = /^"([a-z-]+:[a-z]+)";r=(\d+)(;t=\d+)?$/.exec(String(header));
  if (!match?.[1] || !match[2]) throw new Error(`malformed RateLimit header: ${String(header)}`);
  return { group: match[1], remaining: Number(match[2]) };
}

/** Sends the same request `times` times, one after the other; returns the status codes. */
export async function repeat(testApp: TestApp, times: number, request: InjectOptions): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await testApp.app.inject(request)).statusCode);
  return statuses;
}

/** Every key of the organization as its owner sees it, disabled ones included (through HTTP). */
export async function listAll(testApp: TestApp, owner: TestKey): Promise<Array<Record<string, unknown>>> {
  const response = await testApp.app.inject({
    method: "GET",
    url: "/v1/api-keys?count=100&include_disabled=true",
    headers: owner.headers,
  });
  if (response.statusCode !== 200) throw new Error(`listAll: ${response.statusCode} ${response.body}`);
  return response.json().data;
}

/**
 * A key record without `last_used_at`, for proving that a refused request changed nothing: the
 * caller's own authentication is recorded as a use even when the request is then refused (docs/audit.md).
 */
export function withoutLastUse(record: Record<string, unknown>): Record<string, unknown> {
  const { last_used_at: _lastUse, ...rest } = record;
  return rest;
}

/** A syntactically valid key id that was never issued. */
export const UNKNOWN_KEY_ID = "key_0000000000000000000000";

/**
 * Creates a key over REST as `owner` (`POST /v1/api-keys`), for suites whose point is the create
 * itself: the response, its body and Basic credentials of the new key (meaningless when refused).
 */
export async function postKey(testApp: TestApp, owner: TestKey, payload: Record<string, unknown>) {
  const response = await testApp.app.inject({
    method: "POST",
    url: "/v1/api-keys",
    headers: owner.headers,
    payload,
  });
  const body = response.json();
  return { response, body, headers: basicAuth(body.api_id, body.api_key) };
}
