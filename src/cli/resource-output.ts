import type { ResourceRecord } from "@latchkey/client";
import { formatTable, printable, truncate } from "./text-table.js";

/** One record, as `field: value` lines for a person; settings as one line of JSON. */
export function formatResource(record: ResourceRecord): string {
  const rows: [string, string][] = [
    ["id", record.id],
    ["name", printable(record.name)],
    ["state", record.enabled ? "enabled" : "disabled"],
    ["settings", printable(JSON.stringify(record.settings))],
    ["created_at", record.created_at],
    ["updated_at", record.updated_at],
  ];
  return rows.map(([field, value]) => `${`${field}:`.padEnd(12)}${value}\n`).join("");
}

/** Records as an aligned table for a person; `--json` gives the full records. */
export function formatResourceTable(records: ResourceRecord[], plural: string): string {
  const header = ["ID", "STATE", "NAME", "SETTINGS", "CREATED"];
  const rows = records.map((record) => [
    record.id,
    record.enabled ? "enabled" : "disabled",
    truncate(printable(record.name), 40),
    truncate(printable(JSON.stringify(record.settings)), 50),
    record.created_at,
  ]);
  return formatTable(header, rows, `${records.length} ${plural}`);
}
