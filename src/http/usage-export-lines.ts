import type { UsageExportRow } from "../services/usage-export.js";

export type ExportFormat = "ndjson" | "csv";

/** The media type of each format. */
export const EXPORT_CONTENT_TYPE: Record<ExportFormat, string> = {
  ndjson: "application/x-ndjson",
  csv: "text/csv; charset=utf-8",
};

/** The CSV header; the platform's export adds `external_id` last, so both read alike up to it. */
const CSV_COLUMNS = ["organization_id", "start", "end", "images", "decisions_allowed", "decisions_refused"];

/** Text written to the response at once: thousands of rows per write instead of one write each. */
const CHUNK_CHARACTERS = 64 * 1024;

const iso = (ms: number) => new Date(ms).toISOString();

/** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One NDJSON line: the row as the export documents it. */
export function ndjsonLine(row: UsageExportRow): string {
  return `${JSON.stringify({
    organization_id: row.organizationId,
    ...(row.externalId !== undefined ? { external_id: row.externalId } : {}),
    start: iso(row.start),
    end: iso(row.end),
    images: row.images,
    decisions: { allowed: row.allowed, refused: row.refused },
  })}\n`;
}

function csvLine(row: UsageExportRow, platform: boolean): string {
  const fields = [
    csvField(row.organizationId),
    iso(row.start),
    iso(row.end),
    String(row.images),
    String(row.allowed),
    String(row.refused),
  ];
  if (platform) fields.push(csvField(row.externalId ?? ""));
  return `${fields.join(",")}\r\n`;
}

/** The CSV header line of an organization's (or, with `platform`, the platform's) export. */
export function csvHeader(platform: boolean): string {
  return `${(platform ? [...CSV_COLUMNS, "external_id"] : CSV_COLUMNS).join(",")}\r\n`;
}

/**
 * The export's text, in chunks of about 64 KiB, pulled from `rows` only as the reader asks for more:
 * a slow reader slows the reads, and memory holds one chunk and one read of rows, whatever the size.
 * CSV lines end with CRLF (RFC 4180); NDJSON lines with LF.
 */
export async function* exportText(
  rows: AsyncIterable<UsageExportRow>,
  format: ExportFormat,
  platform: boolean,
): AsyncGenerator<string> {
  let chunk = format === "csv" ? csvHeader(platform) : "";
  for await (const row of rows) {
    chunk += format === "csv" ? csvLine(row, platform) : ndjsonLine(row);
    if (chunk.length >= CHUNK_CHARACTERS) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk !== "") yield chunk;
}
