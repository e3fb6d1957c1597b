import type { Database } from "better-sqlite3";
import type { WebhookEvent } from "../domain/webhook-events.js";
import { newDeliveryId, newMessageId, subscribes } from "./webhook-outbox.js";

const LISTENERS = `select id, events from webhook_endpoints
  where enabled = 1 and (org_id is null or org_id = ?)`;
const MESSAGE = `insert into webhook_messages (id, org_id, type, at, data, dedupe_key)
  values (?, ?, ?, cast(? as bigint), ?, ?) on conflict (dedupe_key) do nothing`;
const DELIVERY = `insert into webhook_deliveries
  (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at)
  values (?, ?, ?, 'pending', 0, cast(? as bigint), cast(? as bigint))`;

/**
 * webhook-outbox.ts's `enqueueEvent` for an organization's event, synchronous on the better-sqlite3
 * connection, for the credit consumer (sqlite-credits.ts), whose transaction cannot await: the same
 * rows (a message once per dedupe key, a delivery per enabled endpoint subscribed, the organization's
 * and the platform's). Prepared on first use: most consumptions never write an event.
 */
export function createSqliteOutbox(database: Database): (event: WebhookEvent & { orgId: string }) => void {
  const prepare = () => ({
    listeners: database.prepare(LISTENERS),
    message: database.prepare(MESSAGE),
    delivery: database.prepare(DELIVERY),
  });
  let statements: ReturnType<typeof prepare> | undefined;
  return (event) => {
    statements ??= prepare();
    const endpoints = (statements.listeners.all(event.orgId) as { id: string; events: string }[]).filter(
      (row) => subscribes(row, event.type),
    );
    if (endpoints.length === 0) return;
    const id = newMessageId();
    const data = JSON.stringify(event.data);
    const { changes } = statements.message.run(
      id,
      event.orgId,
      event.type,
      event.at,
      data,
      event.dedupeKey ?? null,
    );
    if (changes === 0) return;
    for (const endpoint of endpoints) {
      statements.delivery.run(newDeliveryId(), id, endpoint.id, event.at, event.at);
    }
  };
}
