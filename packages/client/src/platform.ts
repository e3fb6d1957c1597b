import type { Transport } from "./transport.js";
import type {
  AuthorizeDecision,
  AuthorizeRequest,
  UsageExportOptions,
  UsageExportRow,
  UsageReport,
} from "./types.js";
import { exportText, ndjsonRows } from "./usage-export.js";

/** What {@link authorize} takes: the wire body, with an absent `Authorization` header allowed as is. */
export interface AuthorizeInput extends Omit<AuthorizeRequest, "authorization"> {
  /**
   * The `Authorization` header your service received, verbatim (e.g. `request.headers.authorization`);
   * `undefined`, `null` or `""` when there was none, which latchkey answers with a 401 decision.
   */
  authorization: string | null | undefined;
}

/**
 * `POST /v1/authorize` with the client's service token. Resolves to the decision whether or not the
 * caller is allowed (a refused caller is an answer, not an error, and is never retried); throws a
 * `LatchkeyError` only when latchkey could not decide: 400 for a bad body (unknown permission or
 * group, credits not a whole number >= 1), 401 `invalid_service_token`, or a network failure.
 */
export async function authorize(transport: Transport, input: AuthorizeInput): Promise<AuthorizeDecision> {
  const body: AuthorizeRequest = { ...input, authorization: input.authorization ?? null };
  return transport.request({
    method: "POST",
    path: "/v1/authorize",
    body,
    authentication: "service-token",
  });
}

/** The usage report, reached as `client.usage`. */
export class UsageResource {
  readonly #transport: Transport;

  /** @internal Built by `LatchkeyClient`. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * `GET /v1/usage`: the image credits the client's organization consumed per hour (last 72), day
   * (last 60), calendar month (last 12) and billing period. Needs a key with `usage:read`; not
   * rate-limited.
   */
  async get(): Promise<UsageReport> {
    return this.#transport.request({ method: "GET", path: "/v1/usage" });
  }

  /**
   * `GET /v1/usage/export`: the organization's images and decisions per hour or day, oldest first,
   * one row per interval with something recorded, parsed as they arrive (constant memory). `from` and
   * `to` on a UTC hour, at most 31 days apart. Needs `usage:read`.
   */
  export(options: UsageExportOptions): AsyncGenerator<UsageExportRow> {
    return ndjsonRows(exportText(this.#transport, "/v1/usage/export", options, "ndjson", "basic"));
  }

  /** The same export as text (`ndjson` or `csv`), chunk by chunk, e.g. to write to a file. */
  exportText(options: UsageExportOptions, format: "ndjson" | "csv" = "csv"): AsyncGenerator<string> {
    return exportText(this.#transport, "/v1/usage/export", options, format, "basic");
  }
}
