import type { Kysely, Migration } from "kysely";

/**
 * Webhooks (docs/webhooks.md): endpoints, the outbox of messages written in the transaction of the change
 * that caused them, one delivery per message and endpoint (the queue every node takes attempts from),
 * and the attempts log kept 30 days.
 */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    // An organization's endpoints (org_id set) and the platform's (org_id null). `events` is a JSON
    // array; the signing secret is kept as it is: the sender needs it to sign.
    await db.schema
      .createTable("webhook_endpoints")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("org_id", "text", (col) => col.references("organizations.id"))
      .addColumn("url", "text", (col) => col.notNull())
      .addColumn("events", "text", (col) => col.notNull())
      .addColumn("description", "text")
      .addColumn("enabled", "integer", (col) => col.notNull())
      .addColumn("secret", "text", (col) => col.notNull())
      .addColumn("previous_secret", "text")
      .addColumn("previous_secret_expires_at", "bigint")
      .addColumn("failing_since", "bigint")
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addColumn("updated_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("webhook_endpoints_by_org")
      .on("webhook_endpoints")
      .columns(["org_id", "created_at", "id"])
      .execute();

    await db.schema
      .createTable("webhook_messages")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("org_id", "text")
      .addColumn("type", "text", (col) => col.notNull())
      .addColumn("at", "bigint", (col) => col.notNull())
      .addColumn("data", "text", (col) => col.notNull())
      // Names an occurrence noticed on several nodes (a threshold, an exhausted window): recorded once.
      .addColumn("dedupe_key", "text", (col) => col.unique())
      .execute();
    await db.schema.createIndex("webhook_messages_by_at").on("webhook_messages").column("at").execute();

    await db.schema
      .createTable("webhook_deliveries")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("message_id", "text", (col) => col.notNull())
      .addColumn("endpoint_id", "text", (col) => col.notNull())
      // pending (to send at next_attempt_at, which a claim moves past its lease), delivered, failed.
      .addColumn("status", "text", (col) => col.notNull())
      .addColumn("attempts", "integer", (col) => col.notNull())
      .addColumn("next_attempt_at", "bigint", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("webhook_deliveries_due")
      .on("webhook_deliveries")
      .columns(["status", "next_attempt_at"])
      .execute();
    await db.schema
      .createIndex("webhook_deliveries_one_per_endpoint")
      .on("webhook_deliveries")
      .columns(["message_id", "endpoint_id"])
      .unique()
      .execute();

    await db.schema
      .createTable("webhook_attempts")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("delivery_id", "text", (col) => col.notNull())
      .addColumn("message_id", "text", (col) => col.notNull())
      .addColumn("endpoint_id", "text", (col) => col.notNull())
      .addColumn("status", "text", (col) => col.notNull())
      .addColumn("response_status", "integer")
      .addColumn("duration_ms", "integer", (col) => col.notNull())
      .addColumn("at", "bigint", (col) => col.notNull())
      .addColumn("response_excerpt", "text")
      .execute();
    await db.schema
      .createIndex("webhook_attempts_by_endpoint")
      .on("webhook_attempts")
      .columns(["endpoint_id", "at", "id"])
      .execute();
    await db.schema.createIndex("webhook_attempts_by_at").on("webhook_attempts").column("at").execute();

    // Set once a grant's expiry has been announced (credits.grant_expired).
    await db.schema.alterTable("credit_grants").addColumn("expiry_announced_at", "bigint").execute();
  },
};
