import type { FastifyServerOptions } from "fastify";
import type { DestinationStream } from "pino";
import PinoPretty from "pino-pretty";
import type { Config } from "../config.js";

/**
 * The Fastify logger: JSON lines by default, for log collectors; `LATCHKEY_LOG_FORMAT=pretty` renders
 * the same records for people (pino-pretty, in-process, so no worker thread is started). `stream`
 * replaces standard output (tests capture the lines there).
 */
export function loggerOptions(
  config: Pick<Config, "logLevel" | "logFormat">,
  stream: DestinationStream | undefined,
): FastifyServerOptions["logger"] {
  const destination =
    config.logFormat === "pretty"
      ? PinoPretty({
          destination: stream ?? 1,
          // Synchronous, so the last lines before an exit are not lost; pretty logs are for people.
          sync: true,
          translateTime: "SYS:standard",
          ignore: "pid,hostname",
        })
      : stream;
  return {
    level: config.logLevel,
    // Credentials must never reach a log line, whatever a serializer or a debug session adds.
    redact: {
      paths: [
        "req.headers.authorization",
        "headers.authorization",
        "authorization",
        'req.headers["x-latchkey-service-token"]',
        'headers["x-latchkey-service-token"]',
      ],
      censor: "[redacted]",
    },
    ...(destination ? { stream: destination } : {}),
  };
}
