import { createWriteStream } from "node:fs";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Command, InvalidArgumentError } from "commander";
import { LatchkeyError as DomainError } from "../domain/errors.js";
import { type ExportGranularity, type ExportRange, exportRange } from "../domain/usage-export-range.js";
import type { ExportFormat } from "../http/usage-export-lines.js";
import { UsageError } from "./exit-codes.js";

interface ExportOptions {
  from: string;
  to: string;
  granularity: ExportGranularity;
  format: ExportFormat;
  output?: string;
  url?: string;
}

function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`must be one of ${values.join(", ")}.`);
    }
    return value as T;
  };
}

/**
 * `latchkey usage export`: every organization's usage rows, with its external_id, as the platform's
 * export (docs/usage-export.md). Beside the database, or through a running server's
 * `/v1/admin/usage/export` with `--url` and LATCHKEY_SERVICE_TOKEN (the `provision` scope). Written as
 * read, to standard output or a file: constant memory, whatever the size.
 */
export function registerUsageCommands(program: Command): void {
  const usage = program.command("usage").description("Usage of every organization, for billing.");
  usage
    .command("export")
    .description("Export images and decisions per hour or day for every organization, as NDJSON or CSV.")
    .requiredOption("--from <time>", "start of the range (inclusive): RFC 3339, on a UTC hour")
    .requiredOption(
      "--to <time>",
      "end of the range (exclusive): RFC 3339, on a UTC hour, at most 31 days on",
    )
    .option(
      "--granularity <hour|day>",
      "one row per hour or per day",
      oneOf(["hour", "day"] as const),
      "hour",
    )
    .option("--format <ndjson|csv>", "output format", oneOf(["ndjson", "csv"] as const), "ndjson")
    .option("--output <file>", "write to this file instead of standard output")
    .option("--url <url>", "export through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .action(async (options: ExportOptions) => {
      const text = options.url ? await remoteText(options.url, options) : await localText(options);
      const destination: Writable = options.output ? createWriteStream(options.output) : process.stdout;
      // pipeline waits for the destination at each chunk: a slow disk or pipe slows the reads.
      await pipeline(Readable.from(text), destination, { end: options.output !== undefined });
    });
}

/** The export read from the database beside the command. */
async function localText(options: ExportOptions): Promise<AsyncGenerator<string>> {
  let range: ExportRange;
  try {
    range = exportRange(options);
  } catch (error) {
    if (error instanceof DomainError) throw new UsageError(error.message);
    throw error;
  }
  const [{ withStores }, { createUsageExport }, { exportText }] = await Promise.all([
    import("./with-stores.js"),
    import("../services/usage-export.js"),
    import("../http/usage-export-lines.js"),
  ]);
  // Streams inside withStores, which closes the database once the last row is written.
  let release: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  const opened = new Promise<AsyncGenerator<string>>((resolve, reject) => {
    withStores(async (stores) => {
      const usageExport = createUsageExport({ store: stores.usageExport, flushDecisions: async () => {} });
      async function* text(): AsyncGenerator<string> {
        try {
          yield* exportText(usageExport.platform(range), options.format, true);
        } finally {
          release();
        }
      }
      resolve(text());
      await done;
    }).catch(reject);
  });
  return opened;
}

/** The export through `/v1/admin/usage/export`. */
async function remoteText(url: string, options: ExportOptions): Promise<AsyncGenerator<string>> {
  const { adminClient } = await import("./admin-connection.js");
  const { admin } = adminClient(url);
  const text = admin.exportUsageText(
    { from: options.from, to: options.to, granularity: options.granularity },
    options.format,
  );
  // The first chunk before anything is written: a refusal is an error, not an empty file.
  const first = await text.next();
  async function* all(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    yield* text;
  }
  return all();
}
