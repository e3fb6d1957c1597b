import type { FastifyServerOptions } from "fastify";
import pino, { type DestinationStream } from "pino";
import PinoPretty from "pino-pretty";
import type { Config } from "../config.js";

export interface LoggerSetup {
  /** Fastify's `logger` option. */
  options: FastifyServerOptions["logger"];
  /** Writes out what is still buffered (when the app closes). */
  flush(): void;
}

/**
 * Where JSON log lines go (standard output, or a file for the benchmarks): pino's sonic-boom, written
 * asynchronously, so a request never waits for the write; what is still buffered is written when the
 * app closes (`flush`).
 */
export function logDestination(dest: number | string): pino.DestinationStream & { flushSync(): void } {
  return pino.destination({ dest, sync: false });
}

/**
 * The Fastify logger: JSON lines by default, for log collectors, written asynchronously (pino's
 * sonic-boom destination with `sync: false`: a request never waits for standard output, and pino
 * writes what is buffered when the process exits); `LATCHKEY_LOG_FORMAT=pretty` renders the same
 * records for people (pino-pretty, in-process, so no worker thread is started). `stream` replaces
 * standard output (tests capture the lines there).
 */
export function loggerOptions(
  config: Pick<Config, "logLevel" | "logFormat">,
  stream: DestinationStream | undefined,
): LoggerSetup {
  const pretty = config.logFormat === "pretty";
  const json = pretty || stream ? undefined : logDestination(1);
  const destination = pretty
    ? PinoPretty({
        destination: stream ?? 1,
        // Synchronous, so the last lines before an exit are not lost; pretty logs are for people.
        sync: true,
        translateTime: "SYS:standard",
        ignore: "pid,hostname",
      })
    : (stream ?? json);
  return {
    options: {
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
    },
    flush() {
      try {
        json?.flushSync();
      } catch {
        // Not open yet or closed already: nothing is buffered.
      }
    },
  };
}
