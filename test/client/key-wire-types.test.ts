import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, test } from "vitest";

/*
 * The client writes its key shapes by hand (it may import nothing from the server: see
 * package-boundary.test.ts), so this test type-checks them against the server's TypeBox schemas, the
 * ones that also validate requests and make the OpenAPI components, with the TypeScript compiler: a
 * member added, removed, renamed, made optional or retyped on either side fails it.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile).config;
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);

const PRELUDE = `
import type { Static } from "typebox";
import type * as Server from "../../src/http/schemas.js";
import type * as Client from "../../src/client/types.js";
type Request = Static<typeof Server.KeyConfigurationBody>;
type Record = Static<typeof Server.KeyRecord>;
type Created = Static<typeof Server.CreatedKeyRecord>;
type List = Static<typeof Server.KeyList>;
/** Both sides name the same members. */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
/** The members that must be present. */
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
/** Both sides require the same members. */
type SameRequired<A, B> = SameKeys<{ [K in RequiredKeys<A>]: 1 }, { [K in RequiredKeys<B>]: 1 }>;
/** Everything the server sends fits the client's type. */
type Reads<ClientType, ServerType> = [ServerType] extends [ClientType] ? true : false;
/** Everything the client's type allows, the server accepts. */
type Sends<ClientType, ServerType> = [ClientType] extends [ServerType] ? true : false;
`;

const CHECKS = `
export const requestKeys: SameKeys<Client.KeyConfiguration, Request> = true;
export const requestRequired: SameRequired<Client.KeyConfiguration, Request> = true;
export const requestSends: Sends<Client.KeyConfiguration, Request> = true;
export const recordKeys: SameKeys<Client.KeyRecord, Record> = true;
export const recordRequired: SameRequired<Client.KeyRecord, Record> = true;
export const recordReads: Reads<Client.KeyRecord, Record> = true;
export const createdKeys: SameKeys<Client.CreatedKey, Created> = true;
export const createdReads: Reads<Client.CreatedKey, Created> = true;
export const pageKeys: SameKeys<Client.KeyPage, List> = true;
export const paginationKeys: SameKeys<Client.KeyPage["pagination"], List["pagination"]> = true;
export const pageReads: Reads<Client.KeyPage, List> = true;
export const errorKeys: SameKeys<Client.ErrorBody, Server.ErrorBody> = true;
export const errorReads: Reads<Client.ErrorBody, Server.ErrorBody> = true;
`;

// Deliberate drifts, so the test proves the checks can fail: a member the client lacks, a member it
// makes optional, and a member it types differently.
const DRIFTS = `
export const driftMissing: SameKeys<Omit<Client.KeyRecord, "updated_at">, Record> = true;
export const driftOptional: SameRequired<Omit<Client.KeyRecord, "name"> & { name?: string }, Record> = true;
export const driftRetyped: Reads<Omit<Client.KeyRecord, "enabled"> & { enabled: string }, Record> = true;
`;

/** Type-checks \`source\` as if it were a file in test/client; returns the names of the failing checks. */
function failingChecks(source: string): string[] {
  const fileName = join(root, "test", "client", "key-wire-types-check.ts");
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

test("the client's key and error types match the server's TypeBox schemas (and drifts are caught)", () => {
  expect(failingChecks(PRELUDE + CHECKS + DRIFTS).sort()).toEqual([
    "driftMissing",
    "driftOptional",
    "driftRetyped",
  ]);
}, 60_000);
