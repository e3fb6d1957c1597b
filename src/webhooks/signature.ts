import { Webhook } from "standardwebhooks";
import type { WebhookEndpoint } from "../store/webhook-store.js";

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` (the message's id, the same on every
 * attempt and resend), `webhook-timestamp` (this attempt's, in seconds), and `webhook-signature`,
 * `v1,<base64 HMAC-SHA256>` by the endpoint's secret, and by its previous one as well while a rotation's
 * overlap lasts (space-separated; a receiver accepts either). Signed by the standardwebhooks library,
 * the same one receivers verify with. `now` (latchkey's clock) decides whether the overlap lasts; the
 * timestamp is the system's time as the request leaves, which receivers compare with their own clocks.
 */
export function signedHeaders(
  endpoint: Pick<WebhookEndpoint, "secret" | "previousSecret" | "previousSecretExpiresAt">,
  messageId: string,
  body: string,
  now: number,
): Record<string, string> {
  const at = new Date(Math.floor(Date.now() / 1000) * 1000);
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && (endpoint.previousSecretExpiresAt ?? 0) > now) {
    secrets.push(endpoint.previousSecret);
  }
  return {
    "content-type": "application/json",
    "user-agent": "latchkey-webhooks",
    "webhook-id": messageId,
    "webhook-timestamp": String(at.getTime() / 1000),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(" "),
  };
}
