import type { Command } from "commander";
import { UsageError } from "./exit-codes.js";
import { readInput } from "./read-input.js";
import { formatTable, printable } from "./text-table.js";

const IMPORT_HELP = `
An operator command: it opens the database (LATCHKEY_DATABASE_URL) like 'org create', not a server.
One key per line, as JSON:
  {"name", "description"?, "permissions", "api_id"?, "secret"}            the plaintext secret
  {"name", "description"?, "permissions", "api_id"?, "secret_sha256"}     its hex SHA-256, plaintext gone
A given api_id is kept, so callers keep both halves of their credentials; without one a new api_id is
made, shown in the output. Imported keys authenticate with their old secrets. Every line is checked
first; then all keys are stored in one transaction, quota-checked and audited (api_key.import), or none
is. A bad line is reported with its number and field, and nothing is stored. --dry-run checks
everything, the quota and taken api_ids included, and stores nothing. expires_at follows the rules of
a create (the organization's policy included). Secrets are hashed as the servers hash them: the import
is refused until a server has started on the database (each records whether it uses a pepper, and
which), and whenever LATCHKEY_SECRET_PEPPER here differs from theirs; with a pepper, secret_sha256 lines
are refused. See docs/import.md (converting an Unkey export, for instance).`;

interface ImportFlags {
  org: string;
  file: string;
  dryRun?: boolean;
  json?: boolean;
}

async function runImport(flags: ImportFlags): Promise<void> {
  const text = await readInput(flags.file);
  // Loaded on use, like every operator command's, so the other `keys` commands start fast.
  const [
    { loadConfig },
    { systemClock },
    { createSecretHasher },
    { LatchkeyError },
    { secretHashingOf },
    { importKeys },
    { withStores },
  ] = await Promise.all([
    import("../config.js"),
    import("../domain/clock.js"),
    import("../domain/credentials.js"),
    import("../domain/errors.js"),
    import("../domain/secret-hashing.js"),
    import("../services/key-import.js"),
    import("./with-stores.js"),
  ]);
  const config = loadConfig();
  let imported;
  try {
    imported = await withStores((stores) =>
      importKeys(
        {
          store: stores.keys,
          hasher: createSecretHasher(config.secretPepper),
          clock: systemClock,
          recordedHashing: stores.secretHashing,
          ownHashing: secretHashingOf(config.secretPepper),
        },
        flags.org,
        text,
        { dryRun: flags.dryRun ?? false },
      ),
    );
  } catch (error) {
    // A bad file is the operator's to fix, like a bad flag: exit status 2.
    if (error instanceof LatchkeyError && error.code === "invalid_request")
      throw new UsageError(error.message);
    throw error;
  }
  const rows = imported.map((key) => ({
    line: key.line,
    id: key.id,
    api_id: key.apiId,
    name: key.name,
    secret_scheme: key.secretScheme,
  }));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ dry_run: flags.dryRun ?? false, keys: rows }, null, 2)}\n`);
    return;
  }
  const table = rows.map((row) => [
    String(row.line),
    row.id,
    row.api_id,
    row.secret_scheme,
    printable(row.name),
  ]);
  const count = `${rows.length} key${rows.length === 1 ? "" : "s"}`;
  const summary = flags.dryRun
    ? `${count} would be imported into ${flags.org}; dry run, nothing was stored`
    : `${count} imported into ${flags.org}`;
  process.stdout.write(formatTable(["LINE", "ID", "API_ID", "HASH", "NAME"], table, summary));
}

/** `latchkey keys import`: keys from another system, with their secrets or hashes, all or nothing. */
export function registerImportCommand(keys: Command): void {
  keys
    .command("import")
    .description("Import keys from a JSON-lines file into an organization, all or nothing (operator).")
    .requiredOption("--org <id>", "organization id (org_...)")
    .requiredOption("--file <jsonl>", "the keys, one JSON object per line, or - for standard input")
    .option("--dry-run", "check everything (lines, quota, taken api_ids) and store nothing")
    .option("--json", 'print {"dry_run", "keys": [{"line", "id", "api_id", "name", "secret_scheme"}]}')
    .addHelpText("after", IMPORT_HELP)
    .action(runImport);
}
