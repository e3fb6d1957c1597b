import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { onTestFinished } from "vitest";

/** One delivery the receiver verified with the standardwebhooks library. */
export interface VerifiedDelivery {
  id: string;
  timestamp: number;
  signature: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Milliseconds since the epoch when it arrived. */
  receivedAt: number;
}

/** What the receiver answers: a status, or holding the request open without answering. */
export type ReceiverAnswer = number | "hang" | { status: number; body: string };

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Secrets a delivery may be signed with: it is accepted when one of them verifies it. */
  secrets: string[];
  /** Every verified delivery, attempts of the same message included. */
  deliveries: VerifiedDelivery[];
  /** Requests no secret verified. */
  rejected: { headers: IncomingMessage["headers"]; body: string }[];
  /** What the next requests are answered (204 by default). */
  answer: ReceiverAnswer;
  /** When set, the answer to a verified delivery of this message id (instead of `answer`). */
  answerFor?: (messageId: string) => ReceiverAnswer;
  /** Waits until `predicate` holds for the verified deliveries. */
  waitFor(predicate: (deliveries: VerifiedDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  /** Listens again on the same port (after `stop`). */
  start(): Promise<void>;
}

/**
 * A Standard Webhooks receiver on 127.0.0.1, as a platform would write one: each request is verified
 * with the `standardwebhooks` library against the endpoint's secrets; unverified ones are answered 401.
 */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  let server: Server | null = null;
  const waiters = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: "",
    port,
    secrets: [],
    deliveries: [],
    rejected: [],
    answer: 204,
    async waitFor(predicate, timeoutMs = 20_000) {
      if (predicate(receiver.deliveries)) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `webhook receiver: condition not met in ${timeoutMs} ms (${receiver.deliveries.length} deliveries)`,
            ),
          );
        }, timeoutMs);
        const check = () => {
          if (!predicate(receiver.deliveries)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    async stop() {
      if (!server) return;
      const closing = server;
      server = null;
      closing.closeAllConnections();
      await new Promise((closed) => closing.close(closed));
    },
    async start() {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          const headers = request.headers as Record<string, string>;
          const verified = receiver.secrets.some((secret) => {
            try {
              new Webhook(secret).verify(body, headers);
              return true;
            } catch {
              return false;
            }
          });
          if (!verified) {
            receiver.rejected.push({ headers: request.headers, body });
            response.writeHead(401).end();
            return;
          }
          const answer = receiver.answerFor?.(headers["webhook-id"] ?? "") ?? receiver.answer;
          receiver.deliveries.push({
            id: headers["webhook-id"] ?? "",
            timestamp: Number(headers["webhook-timestamp"]),
            signature: headers["webhook-signature"] ?? "",
            payload: JSON.parse(body) as VerifiedDelivery["payload"],
            receivedAt: Date.now(),
          });
          for (const waiter of [...waiters]) waiter();
          if (answer === "hang") return;
          if (typeof answer === "number") response.writeHead(answer).end();
          else response.writeHead(answer.status).end(answer.body);
        });
      });
      server.listen(receiver.port, "127.0.0.1");
      await once(server, "listening");
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
    },
  };
  await receiver.start();
  onTestFinished(() => receiver.stop());
  return receiver;
}
