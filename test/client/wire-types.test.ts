import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, test } from "vitest";

/*
 * The client writes its wire shapes by hand (it may import nothing from the server: see
 * package-boundary.test.ts), so this test type-checks them against the server's TypeBox schemas with
 * the TypeScript compiler: a member added, removed, renamed or retyped on either side fails it.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile).config;
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);

const PRELUDE = `
import type { Static } from "typebox";
import type * as Server from "../../src/http/platform-schemas.js";
import type * as Client from "../../src/client/types.js";
type ServerDecision = Server.AuthorizeDecision;
type ServerUsage = Static<typeof Server.UsageReportBody>;
/** Both sides name the same members. */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
/** Everything the server sends fits the client's type. */
type Reads<ClientType, ServerType> = [ServerType] extends [ClientType] ? true : false;
/** Everything the client's type allows, the server accepts. */
type Sends<ClientType, ServerType> = [ClientType] extends [ServerType] ? true : false;
`;

const CHECKS = `
export const requestKeys: SameKeys<Client.AuthorizeRequest, Server.AuthorizeBody> = true;
export const requestSends: Sends<Client.AuthorizeRequest, Server.AuthorizeBody> = true;
export const decisionKeys: SameKeys<Client.AuthorizeDecision, ServerDecision> = true;
export const decisionReads: Reads<Client.AuthorizeDecision, ServerDecision> = true;
export const decisionKeyKeys: SameKeys<Client.DecisionKey, NonNullable<ServerDecision["key"]>> = true;
export const errorKeys: SameKeys<Client.ErrorBody, NonNullable<ServerDecision["error"]>> = true;
export const usageKeys: SameKeys<Client.UsageReport, ServerUsage> = true;
export const usageDataKeys: SameKeys<Client.UsageReport["data"], ServerUsage["data"]> = true;
export const periodKeys: SameKeys<Client.BillingPeriodUsage, ServerUsage["per_billing_period"][number]> = true;
export const usageReads: Reads<Client.UsageReport, ServerUsage> = true;
`;

// Two deliberate drifts, so the test proves the checks can fail: a member the client lacks, and a
// member the client types differently.
const DRIFTS = `
export const driftMissing: SameKeys<Omit<Client.AuthorizeDecision, "organization_id">, ServerDecision> = true;
export const driftRetyped: Sends<Omit<Client.AuthorizeRequest, "credits"> & { credits?: string }, Server.AuthorizeBody> = true;
`;

/** Type-checks `source` as if it were a file in test/client; returns the names of the failing checks. */
function failingChecks(source: string): string[] {
  const fileName = join(root, "test", "client", "wire-types-check.ts");
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = ts.createProgram([fileName], { ...options, noEmit: true }, host);
  const file = program.getSourceFile(fileName);
  if (!file) throw new Error("the check file was not loaded");
  return program.getSemanticDiagnostics(file).map((diagnostic) => {
    const line = file.text.split("\n")[file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line] ?? "";
    return (
      /export const (\w+)/.exec(line)?.[1] ?? ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
    );
  });
}

test("the client's authorize and usage types match the server's TypeBox schemas (and drifts are caught)", () => {
  expect(failingChecks(PRELUDE + CHECKS + DRIFTS).sort()).toEqual(["driftMissing", "driftRetyped"]);
}, 60_000);
