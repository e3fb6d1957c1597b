import { type Command, InvalidArgumentError } from "commander";
import type { AuditEntry } from "../domain/audit.js";
import { LatchkeyError } from "../domain/errors.js";
import { parseRfc3339 } from "../domain/rfc3339.js";
import { toAuditEntryBody } from "../http/audit-response.js";
import { createAuditLog } from "../services/audit-log.js";
import { UsageError } from "./exit-codes.js";
import { printable } from "./text-table.js";
import { withStores } from "./with-stores.js";

function parseSince(value: string): number {
  const ms = parseRfc3339(value);
  if (ms === undefined)
    throw new InvalidArgumentError("must be an RFC 3339 time such as 2026-11-22T10:00:00Z.");
  return ms;
}

/** `name: "a" -> "b"` for each member that differs; the whole record for a creation. */
function changeSummary(entry: AuditEntry): string {
  if (!entry.before || !entry.after) return printable(JSON.stringify(entry.after ?? entry.before));
  const before = entry.before;
  const after = entry.after;
  const members = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = members
    .filter((member) => JSON.stringify(before[member]) !== JSON.stringify(after[member]))
    .map((member) => `${member}: ${JSON.stringify(before[member])} -> ${JSON.stringify(after[member])}`);
  return changed.length === 0 ? "(no change)" : printable(changed.join("; "));
}

interface AuditOptions {
  org?: string;
  deployment?: boolean;
  since?: number;
  json?: boolean;
}

/** Every entry of one organization (or of the deployment), newest first, read page by page. */
async function readTrail(options: AuditOptions): Promise<AuditEntry[]> {
  return withStores(async (stores) => {
    if (options.org !== undefined && !(await stores.keys.findOrganization(options.org))) {
      throw new LatchkeyError("not_found", `No organization ${options.org}.`);
    }
    const log = createAuditLog(stores.audit);
    const entries: AuditEntry[] = [];
    let pageStart: string | undefined;
    do {
      const page = await log.list({
        orgId: options.org ?? null,
        count: 100,
        pageStart,
        since: options.since,
      });
      entries.push(...page.entries);
      pageStart = page.nextPageStart ?? undefined;
    } while (pageStart !== undefined);
    return entries;
  });
}

/** `latchkey audit`: the audit trail, read beside the database like the other operator commands. */
export function registerAuditCommand(program: Command): void {
  program
    .command("audit")
    .description(
      "Show the audit trail of an organization (or, with --deployment, of service tokens and console users), newest first.",
    )
    .option("--org <id>", "organization id (org_...)")
    .option(
      "--deployment",
      "show the deployment-wide entries (service tokens, console users) instead of an organization's",
    )
    .option("--since <time>", "only entries at or after this RFC 3339 time", parseSince)
    .option("--json", "print one JSON array of entries (the shape of GET /v1/audit's data)")
    .action(async (options: AuditOptions) => {
      if ((options.org === undefined) === (options.deployment === undefined)) {
        throw new UsageError("Give exactly one of --org <id> and --deployment.");
      }
      const entries = await readTrail(options);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(entries.map(toAuditEntryBody), null, 2)}\n`);
        return;
      }
      if (entries.length === 0) process.stdout.write("No audit entries.\n");
      for (const entry of entries) {
        process.stdout.write(
          `${new Date(entry.at).toISOString()}  ${entry.actor.padEnd(26)} ${entry.action.padEnd(26)} ` +
            `${entry.targetId}  ${changeSummary(entry)}\n`,
        );
      }
    });
}
