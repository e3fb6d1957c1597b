import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, onTestFinished } from "vitest";
import { buildApp, type Services } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { Clock } from "../../src/domain/clock.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";

/** A clock the test moves by hand. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

export function fakeClock(start = Date.parse("2026-11-22T10:00:00.000Z")): FakeClock {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
  };
}

/** Basic credentials of one key, ready for `headers`. */
export interface TestKey {
  id: string;
  apiId: string;
  secret: string;
  orgId: string;
  headers: { authorization: string };
}

export function basicAuth(apiId: string, secret: string): { authorization: string } {
  return { authorization: `Basic ${Buffer.from(`${apiId}:${secret}`).toString("base64")}` };
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  clock: FakeClock | undefined;
  /** Every JSON log line the app wrote. */
  logs: string[];
  /** Creates an organization with an all-future owner key. */
  createOrganization(name?: string): Promise<TestKey>;
}

export interface TestAppOptions {
  /**
   * Environment overrides (LATCHKEY_DATABASE_URL defaults to a fresh in-memory SQLite, and
   * LATCHKEY_PASSWORD_COST to the test cost).
   */
  env?: Record<string, string>;
  /** A fake clock; the system clock when absent. */
  clock?: FakeClock;
}

/** Builds a fresh app over its own database and closes it when the test ends. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  return testAppOf(options, (close) => onTestFinished(close));
}

/**
 * Declares, in a `describe` (or a file), an app that its tests share: built before the first, closed
 * after the last. Building an app costs about what a hundred organizations created in it do, so a
 * file of many small tests shares one; its tests keep apart by each creating organizations of their
 * own (`createOrganization` adds a number to the name, so no two tests' names collide). The returned
 * function gives the app inside a test. Not for a test that needs its own clock or settings.
 */
export function sharedTestApp(options: TestAppOptions = {}): () => TestApp {
  let shared: TestApp | undefined;
  let close: (() => Promise<void>) | undefined;
  let organizations = 0;
  beforeAll(async () => {
    const testApp = await testAppOf(options, (closeApp) => {
      close = closeApp;
    });
    shared = {
      ...testApp,
      createOrganization: (name = "acme") => testApp.createOrganization(`${name} ${++organizations}`),
    };
  });
  afterAll(() => close?.());
  return () => {
    if (!shared)
      throw new Error("sharedTestApp: the app is built before the first test; use it inside tests");
    return shared;
  };
}

/** `ownerApp` over an app its tests share (`sharedTestApp`): each call, a new organization in it. */
export function sharedOwnerApp(): () => Promise<{ testApp: TestApp; app: FastifyInstance; owner: TestKey }> {
  const sharedApp = sharedTestApp();
  return async () => {
    const testApp = sharedApp();
    return { testApp, app: testApp.app, owner: await testApp.createOrganization() };
  };
}

async function testAppOf(
  options: TestAppOptions,
  closeWhenDone: (close: () => Promise<void>) => void,
): Promise<TestApp> {
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const config = loadConfig({
    LATCHKEY_DATABASE_URL: "sqlite::memory:",
    LATCHKEY_LOG_LEVEL: "info",
    // Console passwords hashed at a test cost: sign-ins by the hundred, not the production 50 ms each.
    LATCHKEY_PASSWORD_COST: "insecure-test",
    ...options.env,
  });
  const { app, services } = await buildApp({ config, clock: options.clock, logStream });
  closeWhenDone(async () => {
    await app.close();
  });
  await app.ready();
  return {
    app,
    services,
    clock: options.clock,
    logs,
    async createOrganization(name = "acme") {
      const { organization, owner, secret } = await createOrganizationWithOwner(services, name);
      return {
        id: owner.id,
        apiId: owner.apiId,
        secret,
        orgId: organization.id,
        headers: basicAuth(owner.apiId, secret),
      };
    },
  };
}

/** The most common setup: a fresh app and the owner key of one organization in it. */
export async function ownerApp(
  options: TestAppOptions = {},
): Promise<{ testApp: TestApp; app: FastifyInstance; owner: TestKey }> {
  const testApp = await buildTestApp(options);
  return { testApp, app: testApp.app, owner: await testApp.createOrganization() };
}
