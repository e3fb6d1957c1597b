import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { hostOf, isPublicAddress } from "../domain/webhook-addresses.js";

/** Characters of a receiver's answer kept in the attempts log; the rest is never read. */
export const EXCERPT_CHARACTERS = 1000;
const EXCERPT_BYTES = EXCERPT_CHARACTERS * 4;

/** A receiver's address latchkey refuses to send to (docs/webhooks.md, "Addresses"). */
export class AddressNotAllowed extends Error {
  constructor(readonly address: string) {
    super(`The webhook URL resolves to ${address}, a private, loopback, link-local or reserved address.`);
  }
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: any address, and http too. */
  allowPrivate: boolean;
  timeoutMs: number;
  /** Aborts the attempt (the node is stopping); it is then neither a success nor a failure. */
  signal?: AbortSignal;
}

export interface WebhookResponse {
  /** Whether the receiver answered 2xx. */
  ok: boolean;
  /** Its HTTP status; null when it never answered. */
  status: number | null;
  durationMs: number;
  /** The start of its answer, or why there was none. */
  excerpt: string | null;
}

/**
 * The name's addresses, checked at connection time: the address connected to is the one checked, so a
 * name that changes its answer between a check and the connection (DNS rebinding) gains nothing.
 */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 4);
      const refused = allowPrivate ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused) return callback(new AddressNotAllowed(refused.address), "", 4);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address.`), "", 4);
      callback(null, first.address, first.family);
    });
  };
}

/** Reads at most EXCERPT_BYTES of the answer, then lets the rest go. */
function excerptOf(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve([...text].slice(0, EXCERPT_CHARACTERS).join(""));
    };
    response.on("data", (chunk: Buffer) => {
      if (size >= EXCERPT_BYTES) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size >= EXCERPT_BYTES) {
        response.destroy();
        finish();
      }
    });
    response.on("end", finish);
    response.on("error", finish);
    response.on("close", finish);
  });
}

/**
 * One POST to a receiver: https (or http where private addresses are allowed), no redirects followed,
 * cut at `timeoutMs`. Never throws for the receiver's sake: every failure is an answer.
 */
export async function sendWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const host = hostOf(request.url);
  if (isIP(host) !== 0 && !request.allowPrivate && !isPublicAddress(host)) {
    return { ok: false, status: null, durationMs: 0, excerpt: new AddressNotAllowed(host).message };
  }
  const send = request.url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const outgoing = send(request.url, {
      method: "POST",
      headers: { ...request.headers, "content-length": Buffer.byteLength(request.body) },
      lookup: checkedLookup(request.allowPrivate),
      agent: false,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      settle({
        ok: false,
        status: null,
        durationMs: elapsed(),
        excerpt: `No answer within ${request.timeoutMs / 1000} s: cut off.`,
      });
    }, request.timeoutMs);
    outgoing.on("response", (response) => {
      const status = response.statusCode ?? 0;
      void excerptOf(response).then((excerpt) =>
        settle({ ok: status >= 200 && status < 300, status, durationMs: elapsed(), excerpt }),
      );
    });
    outgoing.on("error", (error) => {
      settle({ ok: false, status: null, durationMs: elapsed(), excerpt: error.message });
    });
    outgoing.end(request.body);
  });
}
