import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import type { UsageExportRow } from "../services/usage-export.js";
import { EXPORT_CONTENT_TYPE, type ExportFormat, exportText } from "./usage-export-lines.js";

/**
 * Sends an export as a stream. Its first chunk is read before the status is sent, so a database that
 * fails at once is an ordinary `503 database_unavailable`; a failure later can only cut the response
 * short (the connection ends without the last chunk of the chunked encoding, which clients report).
 */
export async function sendExport(
  reply: FastifyReply,
  rows: AsyncGenerator<UsageExportRow>,
  format: ExportFormat,
  platform: boolean,
): Promise<FastifyReply> {
  const text = exportText(rows, format, platform);
  const first = await text.next();
  async function* rest(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    yield* text;
  }
  reply.type(EXPORT_CONTENT_TYPE[format]);
  return reply.send(Readable.from(rest(), { objectMode: false }));
}
