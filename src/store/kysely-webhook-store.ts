import type { Kysely } from "kysely";
import { randomBase62 } from "../domain/credentials.js";
import type { WebhookEventType } from "../domain/webhook-events.js";
import type { StoreDialect } from "./dialect.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { recordIdempotentResponse } from "./kysely-idempotency-store.js";
import type { Database, WebhookAttemptsTable, WebhookEndpointsTable } from "./schema.js";
import { enqueueEvent } from "./webhook-outbox.js";
import type {
  ChangeRecords,
  EndpointOwner,
  QueuedWebhookMessage,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookStore,
} from "./webhook-store.js";
import { olderThan } from "./keyset-page.js";

export const newAttemptId = () => `wha_${randomBase62(22)}`;

function toEndpoint(row: WebhookEndpointsTable): WebhookEndpoint {
  const time = (value: number | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    orgId: row.org_id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    description: row.description,
    enabled: Number(row.enabled) === 1,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: time(row.previous_secret_expires_at),
    failingSince: time(row.failing_since),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toRow(endpoint: WebhookEndpoint): WebhookEndpointsTable {
  return {
    id: endpoint.id,
    org_id: endpoint.orgId,
    url: endpoint.url,
    events: JSON.stringify(endpoint.events),
    description: endpoint.description,
    enabled: endpoint.enabled ? 1 : 0,
    secret: endpoint.secret,
    previous_secret: endpoint.previousSecret,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt,
    failing_since: endpoint.failingSince,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

function toAttempt(row: WebhookAttemptsTable): WebhookAttempt {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    messageId: row.message_id,
    endpointId: row.endpoint_id,
    status: row.status,
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    durationMs: Number(row.duration_ms),
    at: Number(row.at),
    responseExcerpt: row.response_excerpt,
  };
}

/** Writes a change's audit entry and idempotent answer in the change's transaction `trx`. */
async function writeRecords<T>(
  trx: Kysely<Database>,
  records: ChangeRecords<T> | undefined,
  before: T | undefined,
  after: T | undefined,
): Promise<void> {
  await insertAuditEntry(trx, records?.audit?.(before, after));
  if (after !== undefined) await recordIdempotentResponse(trx, records?.respond?.(after));
}

/** Endpoints, the outbox's deliveries and the attempts log, on SQLite and PostgreSQL alike. */
export function createKyselyWebhookStore(db: Kysely<Database>, dialect: StoreDialect): WebhookStore {
  const owned = (owner: EndpointOwner) =>
    db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where((eb) => (owner === null ? eb("org_id", "is", null) : eb("org_id", "=", owner)));

  return {
    async insertEndpoint(endpoint, max, records) {
      return db.transaction().execute(async (trx) => {
        // One creator at a time per owner, on every node: the count and the insert are one step.
        await dialect.lockName(trx, `latchkey:webhook-endpoints:${endpoint.orgId ?? "platform"}`);
        const { count } = await trx
          .selectFrom("webhook_endpoints")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where((eb) =>
            endpoint.orgId === null ? eb("org_id", "is", null) : eb("org_id", "=", endpoint.orgId),
          )
          .executeTakeFirstOrThrow();
        if (Number(count) >= max) return false;
        await trx.insertInto("webhook_endpoints").values(toRow(endpoint)).execute();
        await writeRecords(trx, records, undefined, endpoint);
        return true;
      });
    },

    async listEndpoints(owner, limit, after) {
      let select = owned(owner);
      if (after) {
        select = select.where(olderThan({ time: after.createdAt, id: after.id }));
      }
      const rows = await select.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
      return rows.map(toEndpoint);
    },

    async getEndpoint(owner, id) {
      const row = await owned(owner).where("id", "=", id).executeTakeFirst();
      return row ? toEndpoint(row) : null;
    },

    async changeEndpoint(owner, id, change, records) {
      return db.transaction().execute(async (trx) => {
        const row = await dialect
          .lockRows(
            trx
              .selectFrom("webhook_endpoints")
              .selectAll()
              .where("id", "=", id)
              .where((eb) => (owner === null ? eb("org_id", "is", null) : eb("org_id", "=", owner))),
          )
          .executeTakeFirst();
        if (!row) return null;
        const before = toEndpoint(row);
        const changed = change(before);
        await trx.updateTable("webhook_endpoints").set(toRow(changed)).where("id", "=", id).execute();
        await writeRecords(trx, records, before, changed);
        return changed;
      });
    },

    async deleteEndpoint(owner, id, records) {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .deleteFrom("webhook_endpoints")
          .where("id", "=", id)
          .where((eb) => (owner === null ? eb("org_id", "is", null) : eb("org_id", "=", owner)))
          .returningAll()
          .executeTakeFirst();
        if (!removed) return false;
        await writeRecords(trx, records, toEndpoint(removed), undefined);
        await trx
          .deleteFrom("webhook_deliveries")
          .where("endpoint_id", "=", id)
          .where("status", "=", "pending")
          .execute();
        return true;
      });
    },

    async listAttempts(endpointId, limit, after) {
      let select = db.selectFrom("webhook_attempts").selectAll().where("endpoint_id", "=", endpointId);
      if (after) {
        select = select.where(olderThan({ time: after.at, id: after.id }, "at"));
      }
      const rows = await select.orderBy("at", "desc").orderBy("id", "desc").limit(limit).execute();
      return rows.map(toAttempt);
    },

    async enqueueFor(endpoint, event, records) {
      return db.transaction().execute(async (trx) => {
        const id = await enqueueEvent(trx, event, { endpointId: endpoint.id });
        if (id === null) throw new Error("The endpoint vanished while its test was queued.");
        const queued = { messageId: id, type: event.type, endpointId: endpoint.id, queued: 1 };
        await writeRecords(trx, records, undefined, queued);
        return id;
      });
    },

    async resend(owner, messageId, now, endpointId, records) {
      return db.transaction().execute(async (trx) => {
        let deliveries = trx
          .selectFrom("webhook_deliveries")
          .innerJoin("webhook_endpoints", "webhook_endpoints.id", "webhook_deliveries.endpoint_id")
          .innerJoin("webhook_messages", "webhook_messages.id", "webhook_deliveries.message_id")
          .select(["webhook_deliveries.id", "webhook_messages.type"])
          .where("webhook_deliveries.message_id", "=", messageId)
          .where((eb) =>
            owner === null
              ? eb("webhook_endpoints.org_id", "is", null)
              : eb("webhook_endpoints.org_id", "=", owner),
          );
        if (endpointId !== undefined) deliveries = deliveries.where("webhook_endpoints.id", "=", endpointId);
        const rows = await deliveries.execute();
        const ids = rows.map((row) => row.id);
        if (ids.length === 0) return 0;
        // Again from the start of the schedule; the message keeps its id (the receiver's dedupe key).
        await trx
          .updateTable("webhook_deliveries")
          .set({ status: "pending", attempts: 0, next_attempt_at: now })
          .where("id", "in", ids)
          .execute();
        const resent: QueuedWebhookMessage = {
          messageId,
          type: rows[0]!.type as WebhookEventType,
          endpointId: endpointId ?? null,
          queued: ids.length,
        };
        await writeRecords(trx, records, undefined, resent);
        return ids.length;
      });
    },

    async enqueue(event) {
      await db.transaction().execute((trx) => enqueueEvent(trx, event));
    },

    async claimDue(now, leaseMs, limit) {
      return db.transaction().execute(async (trx) => {
        const due = await dialect
          .claimRows(
            trx
              .selectFrom("webhook_deliveries")
              .select(["id", "message_id", "endpoint_id", "attempts"])
              .where("status", "=", "pending")
              .where("next_attempt_at", "<=", now)
              .orderBy("next_attempt_at")
              .limit(limit),
          )
          .execute();
        if (due.length === 0) return [];
        const ids = due.map((row) => row.id);
        // The lease: no node takes these again before it ends; one that died sending leaves them due then.
        await trx
          .updateTable("webhook_deliveries")
          .set({ next_attempt_at: now + leaseMs })
          .where("id", "in", ids)
          .execute();
        const messages = await trx
          .selectFrom("webhook_messages")
          .selectAll()
          .where(
            "id",
            "in",
            due.map((row) => row.message_id),
          )
          .execute();
        const endpoints = await trx
          .selectFrom("webhook_endpoints")
          .selectAll()
          .where(
            "id",
            "in",
            due.map((row) => row.endpoint_id),
          )
          .execute();
        const messageOf = new Map(messages.map((row) => [row.id, row]));
        const endpointOf = new Map(endpoints.map((row) => [row.id, toEndpoint(row)]));
        return due.flatMap((row) => {
          const message = messageOf.get(row.message_id);
          const endpoint = endpointOf.get(row.endpoint_id);
          if (!message || !endpoint) return [];
          return [
            {
              deliveryId: row.id,
              attempts: Number(row.attempts),
              leaseUntil: now + leaseMs,
              message: {
                id: message.id,
                type: message.type as WebhookEventType,
                at: Number(message.at),
                orgId: message.org_id,
                data: message.data,
              },
              endpoint,
            },
          ];
        });
      });
    },

    async record({ delivery, attempt, retryAt, disableEndpoint }) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto("webhook_attempts")
          .values({
            id: attempt.id,
            delivery_id: attempt.deliveryId,
            message_id: attempt.messageId,
            endpoint_id: attempt.endpointId,
            status: attempt.status,
            response_status: attempt.responseStatus,
            duration_ms: attempt.durationMs,
            at: attempt.at,
            response_excerpt: attempt.responseExcerpt,
          })
          .execute();
        const succeeded = attempt.status === "succeeded";
        await trx
          .updateTable("webhook_deliveries")
          .set({
            attempts: delivery.attempts + 1,
            status: succeeded ? "delivered" : retryAt === null ? "failed" : "pending",
            next_attempt_at: retryAt ?? attempt.at,
          })
          .where("id", "=", delivery.deliveryId)
          // Still this claim's: a resend meanwhile queued the delivery afresh, and that stands.
          .where("status", "=", "pending")
          .where("next_attempt_at", "=", delivery.leaseUntil)
          .execute();
        const endpointId = delivery.endpoint.id;
        if (succeeded) {
          await trx
            .updateTable("webhook_endpoints")
            .set({ failing_since: null })
            .where("id", "=", endpointId)
            .where("failing_since", "is not", null)
            .execute();
          return;
        }
        await trx
          .updateTable("webhook_endpoints")
          .set({ failing_since: attempt.at })
          .where("id", "=", endpointId)
          .where("failing_since", "is", null)
          .execute();
        if (!disableEndpoint) return;
        const disabled = await trx
          .updateTable("webhook_endpoints")
          .set({ enabled: 0, updated_at: attempt.at })
          .where("id", "=", endpointId)
          .where("enabled", "=", 1)
          .executeTakeFirst();
        if (Number(disabled.numUpdatedRows) === 0) return;
        await trx
          .updateTable("webhook_deliveries")
          .set({ status: "failed" })
          .where("endpoint_id", "=", endpointId)
          .where("status", "=", "pending")
          .execute();
        await enqueueEvent(trx, {
          type: "webhook_endpoint.disabled",
          orgId: delivery.endpoint.orgId,
          at: attempt.at,
          data: {
            organization_id: delivery.endpoint.orgId,
            endpoint_id: endpointId,
            url: delivery.endpoint.url,
            failing_since: new Date(delivery.endpoint.failingSince ?? attempt.at).toISOString(),
          },
        });
      });
    },

    async depth() {
      const { count } = await db
        .selectFrom("webhook_deliveries")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("status", "=", "pending")
        .executeTakeFirstOrThrow();
      return Number(count);
    },

    async prune(before) {
      await db.deleteFrom("webhook_attempts").where("at", "<", before).execute();
      await db
        .deleteFrom("webhook_deliveries")
        .where("created_at", "<", before)
        .where("status", "!=", "pending")
        .execute();
      await db
        .deleteFrom("webhook_messages")
        .where("at", "<", before)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom("webhook_deliveries")
                .select("webhook_deliveries.id")
                .whereRef("webhook_deliveries.message_id", "=", "webhook_messages.id"),
            ),
          ),
        )
        .execute();
    },

    async announceExpiredGrants(now) {
      return db.transaction().execute(async (trx) => {
        const expired = await dialect
          .claimRows(
            trx
              .selectFrom("credit_grants")
              .selectAll()
              .where("expires_at", "<=", now)
              .where("expiry_announced_at", "is", null)
              .limit(100),
          )
          .execute();
        for (const grant of expired) {
          await trx
            .updateTable("credit_grants")
            .set({ expiry_announced_at: now })
            .where("id", "=", grant.id)
            .execute();
          await enqueueEvent(trx, {
            type: "credits.grant_expired",
            orgId: grant.org_id,
            at: now,
            data: {
              organization_id: grant.org_id,
              grant_id: grant.id,
              credits: Number(grant.credits),
              remaining: Number(grant.remaining),
              expires_at: new Date(Number(grant.expires_at)).toISOString(),
            },
            dedupeKey: `credits.grant_expired:${grant.id}`,
          });
        }
        return expired.length;
      });
    },
  };
}
