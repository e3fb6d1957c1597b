import type { Kysely } from "kysely";
import { randomBase62 } from "../domain/credentials.js";
import {
  PLATFORM_ONLY_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventType,
} from "../domain/webhook-events.js";
import { crossedThresholds, thresholdEvent, thresholdMarks } from "../domain/credit-alerts.js";
import type { CreditConsumption } from "./plan-store.js";
import type { Database, WebhookEndpointsTable } from "./schema.js";

export const newMessageId = () => `msg_${randomBase62(22)}`;
export const newDeliveryId = () => `whd_${randomBase62(22)}`;

export function subscribes(row: Pick<WebhookEndpointsTable, "events">, type: WebhookEventType): boolean {
  return (JSON.parse(row.events) as string[]).includes(type);
}

/**
 * Writes `event` to the outbox with `db`, which is the transaction of the change that caused it: one
 * message and one delivery per enabled endpoint subscribed to it (the organization's own, and the
 * platform's, which receive every organization's events). Nothing is written when no endpoint listens,
 * or when the event's dedupe key was recorded before. The message id, or null when none was written.
 */
export async function enqueueEvent(
  db: Kysely<Database>,
  event: WebhookEvent,
  only?: { endpointId: string },
): Promise<string | null> {
  const platformOnly = PLATFORM_ONLY_EVENT_TYPES.includes(event.type);
  let select = db.selectFrom("webhook_endpoints").select(["id", "events"]);
  // A test goes to its endpoint even while it is disabled: that is how one checks it before enabling it.
  if (only) select = select.where("id", "=", only.endpointId);
  else if (platformOnly || event.orgId === null)
    select = select.where("enabled", "=", 1).where("org_id", "is", null);
  else {
    const orgId = event.orgId;
    select = select.where("enabled", "=", 1);
    select = select.where((eb) => eb.or([eb("org_id", "is", null), eb("org_id", "=", orgId)]));
  }
  const endpoints = (await select.execute()).filter((row) => only || subscribes(row, event.type));
  if (endpoints.length === 0) return null;
  const id = newMessageId();
  const inserted = await db
    .insertInto("webhook_messages")
    .values({
      id,
      org_id: event.orgId,
      type: event.type,
      at: event.at,
      data: JSON.stringify(event.data),
      dedupe_key: event.dedupeKey ?? null,
    })
    .onConflict((conflict) => conflict.column("dedupe_key").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null;
  await db
    .insertInto("webhook_deliveries")
    .values(
      endpoints.map((endpoint) => ({
        id: newDeliveryId(),
        message_id: id,
        endpoint_id: endpoint.id,
        status: "pending" as const,
        attempts: 0,
        next_attempt_at: event.at,
        created_at: event.at,
      })),
    )
    .execute();
  return id;
}

/** Writes the threshold events a consumption crossed with `db`, the consumption's own transaction. */
export async function enqueueCrossedThresholds(
  db: Kysely<Database>,
  c: CreditConsumption,
  before: number,
  after: number,
): Promise<void> {
  if (!c.alerts) return;
  for (const percent of crossedThresholds(thresholdMarks(c.allowance, c.alerts.thresholds), before, after)) {
    await enqueueEvent(db, thresholdEvent(c, percent, after, c.alerts.at));
  }
}
