import type { Transport } from "./transport.js";
import type { UsageExportOptions } from "./types.js";

/** The query of an export: `Date`s as RFC 3339 strings, the format asked for. */
export function exportQuery(options: UsageExportOptions, format: "ndjson" | "csv"): URLSearchParams {
  const time = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);
  const query = new URLSearchParams({ from: time(options.from), to: time(options.to), format });
  if (options.granularity !== undefined) query.set("granularity", options.granularity);
  return query;
}

/**
 * The rows of an NDJSON export, parsed one line at a time as the text arrives: an export of any size
 * is read in constant memory, and the first rows come before the server has read the last ones.
 */
export async function* ndjsonRows<T>(text: AsyncIterable<string>): AsyncGenerator<T> {
  let pending = "";
  for await (const chunk of text) {
    pending += chunk;
    let end = pending.indexOf("\n");
    while (end !== -1) {
      const line = pending.slice(0, end);
      if (line !== "") yield JSON.parse(line) as T;
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
    }
  }
  if (pending !== "") yield JSON.parse(pending) as T;
}

/** An export's text through `transport`, in the chunks the server sends (a file, a pipe). */
export function exportText(
  transport: Transport,
  path: string,
  options: UsageExportOptions,
  format: "ndjson" | "csv",
  authentication: "basic" | "service-token",
): AsyncGenerator<string> {
  return transport.streamText({ method: "GET", path, query: exportQuery(options, format), authentication });
}
