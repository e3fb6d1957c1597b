import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/*
 * The client writes its wire shapes by hand (it may import nothing from the server: see
 * test/client/package-boundary.test.ts), so tests type-check them against the server's TypeBox schemas
 * with the TypeScript compiler: a member added, removed, renamed, made optional or retyped on either
 * side fails them. Each check is an `export const name: Check<...> = true;` line of a source text.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile).config;
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);

/** The comparisons a check can make, prepended to every source. */
export const TYPE_CHECKS = `
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

/**
 * Type-checks `source` (imports relative to test/client) after `TYPE_CHECKS`; returns the names of the
 * checks that fail, or the compiler's message for any other error.
 */
export function failingTypeChecks(source: string): string[] {
  const fileName = join(root, "test", "client", "wire-type-checks.generated.ts");
  const text = TYPE_CHECKS + source;
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, ...rest);
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
