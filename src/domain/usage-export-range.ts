import { LatchkeyError, type ValidationIssue } from "./errors.js";
import { parseRfc3339 } from "./rfc3339.js";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** The longest range one export request may cover (docs/usage-export.md). */
export const MAX_EXPORT_DAYS = 31;

export type ExportGranularity = "hour" | "day";

/** What an export covers: `[from, to)` in epoch ms, summed per hour or per UTC day. */
export interface ExportRange {
  from: number;
  to: number;
  granularity: ExportGranularity;
}

/** The interval one bucket covers, in ms. */
export function bucketMs(granularity: ExportGranularity): number {
  return granularity === "day" ? DAY_MS : HOUR_MS;
}

/**
 * The range of an export request. `from` and `to` are RFC 3339 times on a UTC hour, `to` after `from`
 * (exclusive) and at most 31 days later: billing systems ask for closed hours, and a request never
 * reads more than one month and a day of records. Every problem is named, with its query parameter.
 */
export function exportRange(query: {
  from: string;
  to: string;
  granularity: ExportGranularity;
}): ExportRange {
  const issues: ValidationIssue[] = [];
  const onTheHour = (value: string, name: "from" | "to"): number | undefined => {
    const ms = parseRfc3339(value);
    if (ms === undefined) {
      issues.push({
        path: `/query/${name}`,
        message: `"${value}" is not an RFC 3339 time such as 2026-11-01T00:00:00Z.`,
      });
      return undefined;
    }
    if (ms % HOUR_MS !== 0) {
      issues.push({
        path: `/query/${name}`,
        message: `"${value}" is not on the hour (UTC): use a time such as 2026-11-01T13:00:00Z.`,
      });
      return undefined;
    }
    return ms;
  };
  const from = onTheHour(query.from, "from");
  const to = onTheHour(query.to, "to");
  if (from !== undefined && to !== undefined) {
    if (to <= from) {
      issues.push({ path: "/query/to", message: "to must be later than from (to is exclusive)." });
    } else if (to - from > MAX_EXPORT_DAYS * DAY_MS) {
      issues.push({
        path: "/query/to",
        message: `The range is longer than ${MAX_EXPORT_DAYS} days: export a longer time in several requests.`,
      });
    }
  }
  if (from === undefined || to === undefined || issues.length > 0) {
    const message = issues.map((issue) => issue.message).join(" ");
    throw new LatchkeyError("invalid_request", message, { validationErrors: issues });
  }
  return { from, to, granularity: query.granularity };
}
