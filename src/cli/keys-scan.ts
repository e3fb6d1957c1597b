import type { Command } from "commander";
import { findSecrets, type FoundSecret } from "../domain/secret-finder.js";
import { EXIT } from "./exit-codes.js";
import { readInput } from "./read-input.js";
import { action } from "./keys-connection.js";

const SCAN_HELP = `
Looks for latchkey secrets (lksk_ followed by 38 letters and digits) whose CRC32 checksum is valid, the
check the secret scanning endpoint makes. It works offline on the text alone: it neither reads the database
nor asks a server, so it cannot say which key a secret belongs to, or whether that key is still enabled.
Secrets are shown shortened (lksk_ABCD...wxyz) unless --show-secrets is given.
Exits 0 when none is found, ${EXIT.secretsFound} when some are (for CI and pre-commit hooks).`;

/** `lksk_3Xq9...b3c`: enough to tell two apart, not enough to use. */
function shortened(secret: string): string {
  return `${secret.slice(0, 9)}...${secret.slice(-4)}`;
}

/** `latchkey keys scan <file|->`: latchkey secrets in a text, found offline by their checksum. */
export function registerScanCommand(keys: Command): void {
  keys
    .command("scan")
    .argument("<file>", "the text to scan, or - for standard input")
    .description("Find latchkey secrets (lksk_... with a valid checksum) in a file, offline.")
    .option("--show-secrets", "print each secret in full (they are shortened otherwise)")
    .option("--json", 'print [{"line", "column", "secret"}] as JSON')
    .addHelpText("after", SCAN_HELP)
    .action(
      action(async (source: string, flags: { showSecrets?: boolean; json?: boolean }) => {
        const found = findSecrets(await readInput(source));
        const shown = (hit: FoundSecret) => (flags.showSecrets ? hit.secret : shortened(hit.secret));
        const name = source === "-" ? "(stdin)" : source;
        if (flags.json) {
          const rows = found.map((hit) => ({ line: hit.line, column: hit.column, secret: shown(hit) }));
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        } else {
          for (const hit of found) process.stdout.write(`${name}:${hit.line}:${hit.column}: ${shown(hit)}\n`);
          process.stderr.write(
            found.length === 0
              ? "No latchkey secrets found.\n"
              : `${found.length} latchkey secret${found.length === 1 ? "" : "s"} found: disable or roll the keys they belong to.\n`,
          );
        }
        if (found.length > 0) process.exitCode = EXIT.secretsFound;
      }),
    );
}
