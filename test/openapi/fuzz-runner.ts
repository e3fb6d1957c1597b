import { Writable } from "node:stream";
import fc from "fast-check";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { PERMISSION_CATALOGUE } from "../../src/domain/permissions.js";
import { RATE_LIMIT_GROUPS } from "../../src/domain/rate-limit-groups.js";
import { createOrganizationWithOwner } from "../../src/services/organizations.js";
import {
  type FuzzContext,
  type FuzzRequest,
  materialize,
  operationsOf,
  requestPlans,
} from "./operation-requests.js";

/**
 * Statuses any operation may answer besides its documented ones: what the HTTP layer says before an
 * operation's handler runs. 404: the path (an odd id) names no route; 405: a method the path does not
 * take; 413: a body over the limit; 414: a path segment over the router's limit; 415: a body of a type
 * the route does not read. Everything else must be in the operation's `responses`.
 */
export const GENERIC_STATUSES = ["404", "405", "413", "414", "415"];

/** What one answer got wrong, with the request that got it. */
export interface Finding {
  problem: string;
  status: number;
  request: Omit<FuzzRequest, "payload"> & { payload?: string };
  body: string;
}

export interface FuzzReport {
  cases: number;
  /** Every operationId of the document. */
  operations: string[];
  seed: number;
  /** Answers by operation and status, e.g. `{ createProxy: { "200": 51, "400": 40 } }`. */
  statuses: Record<string, Record<string, number>>;
  findings: Finding[];
}

/** The problems of one answer: a 5xx, an undocumented status, an error body without the error shape. */
export function problemsOf(documented: string[], status: number, body: string): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`a ${status}`);
  if (!documented.includes(String(status)) && !GENERIC_STATUSES.includes(String(status))) {
    problems.push(`undocumented status ${status}`);
  }
  if (status >= 400) {
    let error: Record<string, unknown> | undefined;
    try {
      error = JSON.parse(body) as Record<string, unknown>;
    } catch {
      problems.push("an error body that is not JSON");
    }
    if (
      error !== undefined &&
      !(
        error.statusCode === status &&
        typeof error.error === "string" &&
        typeof error.message === "string" &&
        typeof error.code === "string" &&
        error.code !== ""
      )
    ) {
      problems.push("an error body without {statusCode, error, message, code}");
    }
  }
  return problems;
}

const summary = (request: FuzzRequest): Finding["request"] => {
  const { payload, ...rest } = request;
  if (payload === undefined) return rest;
  const text = typeof payload === "string" ? payload : payload.toString("latin1");
  return { ...rest, payload: text.length > 300 ? `${text.slice(0, 300)}... (${text.length} chars)` : text };
};

/** A fresh app over in-memory SQLite, an organization with records, and its credentials. */
export async function fuzzTarget() {
  const config = loadConfig({
    LATCHKEY_DATABASE_URL: "sqlite::memory:",
    LATCHKEY_LOG_LEVEL: "silent",
    // Webhook URLs are not resolved (no DNS here), and nothing is delivered during the run.
    LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
    LATCHKEY_WEBHOOKS_POLL_MS: "60000",
  });
  const logStream = new Writable({ write: (_chunk, _encoding, done) => done() });
  const { app, services } = await buildApp({ config, logStream });
  await app.ready();
  const { organization, owner, secret } = await createOrganizationWithOwner(services, "fuzz");
  // Rate limits are tested elsewhere: here they would turn most answers into 429 after a minute's quota.
  for (const group of RATE_LIMIT_GROUPS) await services.store.setQuota(organization.id, group, 1_000_000);
  const basic = (apiId: string, key: string) => `Basic ${Buffer.from(`${apiId}:${key}`).toString("base64")}`;
  const limited = await services.keys.create(owner, { name: "reader", permissions: ["images:read"] });
  const second = await services.keys.create(owner, { name: "second", permissions: ["proxies:read"] });
  // Not the owner's: a generated DELETE would disable it, and every later request would be a 401.
  const ids: Record<string, string[]> = { key: [limited.key.id, second.key.id] };
  for (const [prefix, family] of [
    ["prx", "proxies"],
    ["dst", "storage-destinations"],
    ["ogc", "og-configs"],
  ] as const) {
    ids[prefix] = [];
    for (const name of ["one", "two"]) {
      const response = await app.inject({
        method: "POST",
        url: `/v1/${family}`,
        headers: { authorization: basic(owner.apiId, secret) },
        payload: { name, settings: { region: "eu" } },
      });
      ids[prefix].push(response.json().id);
    }
  }
  const { token } = await services.serviceTokens.create("fuzz", undefined, ["authorize", "provision"]);
  // Service tokens of their own, not the fuzzer's: a generated DELETE revokes one.
  ids.stk = [];
  for (const name of ["spare one", "spare two"])
    ids.stk.push((await services.serviceTokens.create(name)).record.id);
  // Organizations of their own for the admin routes: a generated PATCH may disable one.
  ids.org = [];
  for (const name of ["admin one", "admin two", "admin three", "admin four"]) {
    const created = await services.provisioning.create({ name }, "operator");
    ids.org.push(created.organization.id);
  }
  // Webhook endpoints of the organization and of the platform (the admin routes'), and messages sent to
  // endpoints of their own: a generated DELETE of a known endpoint must not make every resend a 404.
  const endpoint = { url: "https://hooks.example.com/", events: ["webhook.test" as const] };
  for (const [suffix, owner] of [
    ["", organization.id],
    [":admin", null],
  ] as const) {
    const endpoints: string[] = (ids[`whe${suffix}`] = []);
    const messages: string[] = (ids[`msg${suffix}`] = []);
    const caller = { owner, actor: "operator" };
    for (let i = 0; i < 4; i++) {
      endpoints.push((await services.webhooks.create(caller, endpoint)).id);
      const kept = await services.webhooks.create(caller, endpoint);
      messages.push((await services.webhooks.test(caller, kept.id)).id);
    }
  }
  const context: FuzzContext = {
    owner: { authorization: basic(owner.apiId, secret), apiId: owner.apiId },
    limited: basic(limited.key.apiId, limited.secret),
    serviceToken: token,
    ids,
  };
  return { app, context };
}

/**
 * Sends `cases` requests generated from the app's own /openapi.json (`seed` makes them repeatable),
 * on a fresh app every `casesPerApp` (so that deleted records, disabled keys and quotas do not take
 * over), and reports
 * every finding.
 */
export async function fuzzOpenApi(options: {
  cases: number;
  seed: number;
  casesPerApp?: number;
  /** Called after every batch of 500, with the report so far. */
  onProgress?: (report: FuzzReport) => void;
}): Promise<FuzzReport> {
  const { cases, seed, casesPerApp = 500 } = options;
  let target = await fuzzTarget();
  const document = (await target.app.inject({ url: "/openapi.json" })).json();
  const { operations, resolve } = operationsOf(document);
  const report: FuzzReport = {
    cases: 0,
    operations: operations.map((operation) => operation.operationId),
    seed,
    statuses: {},
    findings: [],
  };
  const vocabulary = { words: [...PERMISSION_CATALOGUE, ...RATE_LIMIT_GROUPS, "rest", "mcp"] };
  // Each operation gets its share of every batch, whatever their number: a uniform pick among many
  // operations left some without a single allowed request in 3,000 cases.
  const plansByOperation = operations.map((operation) => requestPlans(operation, resolve, vocabulary));
  const sampleBatch = (size: number, batchSeed: number) => {
    const perOperation = Math.ceil(size / plansByOperation.length);
    const samples = plansByOperation.map((plans, index) =>
      fc.sample(plans, { numRuns: perOperation, seed: batchSeed + index }),
    );
    return Array.from({ length: size }, (_, i) => {
      const plan = samples[i % samples.length]?.[Math.floor(i / samples.length)];
      if (!plan) throw new Error("fuzz: a batch ran out of plans");
      return plan;
    });
  };
  const batch = 500;
  try {
    for (let start = 0; start < cases; start += batch) {
      if (start > 0 && start % casesPerApp === 0) {
        await target.app.close();
        target = await fuzzTarget();
      }
      const sample = sampleBatch(Math.min(batch, cases - start), seed + start);
      for (const plan of sample) {
        const request = materialize(plan, target.context);
        const response = await target.app.inject({
          method: request.method as "GET",
          url: request.url,
          headers: request.headers,
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        });
        report.cases++;
        const byStatus = (report.statuses[request.operationId] ??= {});
        byStatus[response.statusCode] = (byStatus[response.statusCode] ?? 0) + 1;
        for (const problem of problemsOf(plan.operation.statuses, response.statusCode, response.body)) {
          report.findings.push({
            problem,
            status: response.statusCode,
            request: summary(request),
            body: response.body.slice(0, 500),
          });
        }
      }
      options.onProgress?.(report);
    }
  } finally {
    await target.app.close();
  }
  return report;
}
