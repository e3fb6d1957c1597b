import { type Static, Type } from "typebox";
import { MAX_EXPORT_DAYS } from "../domain/usage-export-range.js";
import { named } from "./schemas.js";

/** The wire shapes of the usage export (docs/usage-export.md), defined once. */

export const UsageExportQuery = Type.Object(
  {
    from: Type.String({
      description: "Start of the range (inclusive): an RFC 3339 time on a UTC hour.",
      examples: ["2026-11-01T00:00:00Z", "2026-11-22T10:00:00Z"],
    }),
    to: Type.String({
      description: `End of the range (exclusive): an RFC 3339 time on a UTC hour, at most ${MAX_EXPORT_DAYS} days after \`from\`.`,
      examples: ["2026-12-01T00:00:00Z", "2026-11-23T00:00:00Z"],
    }),
    granularity: Type.Union([Type.Literal("hour"), Type.Literal("day")], {
      default: "hour",
      description: "One row per organization and UTC hour, or per UTC day.",
    }),
    format: Type.Union([Type.Literal("ndjson"), Type.Literal("csv")], {
      default: "ndjson",
      description:
        "`ndjson`: one JSON object per line (`application/x-ndjson`); `csv`: a header line, then one line per row.",
    }),
  },
  { additionalProperties: false },
);
export type UsageExportQuery = Static<typeof UsageExportQuery>;

const rowExample = {
  organization_id: "org_QH0ptbBe7WlnJxYGrHxbYS",
  start: "2026-11-22T11:00:00.000Z",
  end: "2026-11-22T12:00:00.000Z",
  images: 42,
  decisions: { allowed: 1290, refused: 17 },
};

const platformRowExample = { ...rowExample, external_id: "cus_9f8e7d" };

const rowMembers = {
  organization_id: Type.String({ description: "`org_...` identifier." }),
  start: Type.String({ format: "date-time", description: "Start of the interval (inclusive)." }),
  end: Type.String({ format: "date-time", description: "End of the interval (exclusive)." }),
  images: Type.Integer({ description: "Image credits consumed." }),
  decisions: Type.Object(
    {
      allowed: Type.Integer({ description: "Authorize and forward-auth decisions that allowed a caller." }),
      refused: Type.Integer({
        description: "Decisions that refused a caller whose credentials were accepted (403, 429, 503).",
      }),
    },
    { additionalProperties: false },
  ),
};

/** One line of an organization's NDJSON export. */
export const UsageExportRow = Type.Object(rowMembers, {
  ...named("UsageExportRow", "One interval of one organization's usage: one line of the NDJSON export."),
  additionalProperties: false,
  examples: [rowExample],
});

/** One line of the platform's NDJSON export: the organization's row with its `external_id`. */
export const PlatformUsageExportRow = Type.Object(
  {
    ...rowMembers,
    external_id: Type.Union([Type.String(), Type.Null()], {
      description: "The platform's own id of this customer; null: none.",
    }),
  },
  {
    ...named("PlatformUsageExportRow", "One line of the platform's NDJSON export, with `external_id`."),
    additionalProperties: false,
    examples: [platformRowExample],
  },
);

const csvExample = [
  "organization_id,start,end,images,decisions_allowed,decisions_refused",
  "org_QH0ptbBe7WlnJxYGrHxbYS,2026-11-22T11:00:00.000Z,2026-11-22T12:00:00.000Z,42,1290,17",
  "",
].join("\r\n");

const platformCsvExample = [
  "organization_id,start,end,images,decisions_allowed,decisions_refused,external_id",
  "org_QH0ptbBe7WlnJxYGrHxbYS,2026-11-22T11:00:00.000Z,2026-11-22T12:00:00.000Z,42,1290,17,cus_9f8e7d",
  "",
].join("\r\n");

const streamed =
  "Streamed: the first rows arrive while later ones are still being read. Only intervals with " +
  "something recorded are listed. A response cut short (the connection ends without the last chunk) " +
  "is incomplete: ask again.";

const UsageExportCsv = Type.String({
  ...named(
    "UsageExportCsv",
    "The CSV export: a header line, then one line per row, CRLF line ends (RFC 4180).",
  ),
  examples: [csvExample],
});

const PlatformUsageExportCsv = Type.String({
  ...named(
    "PlatformUsageExportCsv",
    "The platform's CSV export: the organization export's columns, then `external_id`.",
  ),
  examples: [platformCsvExample],
});

/** The 200 of each export, per format: documentation only, a stream is never serialized. */
function exportResponse(
  ndjson: { schema: typeof UsageExportRow; example: object },
  csv: { schema: typeof UsageExportCsv; example: string },
) {
  return {
    description: streamed,
    content: { "application/x-ndjson": ndjson, "text/csv": csv },
  };
}

export const UsageExportResponse = exportResponse(
  { schema: UsageExportRow, example: rowExample },
  { schema: UsageExportCsv, example: csvExample },
);
export const PlatformUsageExportResponse = exportResponse(
  { schema: PlatformUsageExportRow, example: platformRowExample },
  { schema: PlatformUsageExportCsv, example: platformCsvExample },
);
