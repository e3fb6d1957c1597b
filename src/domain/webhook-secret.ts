import { randomBytes } from "node:crypto";

/**
 * A webhook signing secret as Standard Webhooks writes it: `whsec_` and the base64 of 32 random bytes
 * (the HMAC-SHA256 key). Unlike API keys it is kept as it is: the sender needs it to sign.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
