import { type Kysely, type Migration, sql } from "kysely";

/**
 * The console's people (docs/console.md): users who sign in with an email and a password, their
 * memberships of organizations with a role, and their sessions. Numbered 010 so that the key
 * lifecycle migrations (007 to 009) keep their place.
 */
export const consoleUsers: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("console_users")
      .addColumn("id", "text", (col) => col.primaryKey())
      // Stored as typed, compared lower-cased (the unique index below).
      .addColumn("email", "text", (col) => col.notNull())
      // `scrypt$<N>$<r>$<p>$<salt>$<hash>` (src/domain/passwords.ts); never the password.
      .addColumn("password_hash", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("console_users_email_unique")
      .on("console_users")
      .expression(sql`lower(email)`)
      .unique()
      .execute();
    await db.schema
      .createTable("memberships")
      .addColumn("user_id", "text", (col) => col.notNull().references("console_users.id").onDelete("cascade"))
      .addColumn("org_id", "text", (col) => col.notNull().references("organizations.id").onDelete("cascade"))
      // owner | admin | member
      .addColumn("role", "text", (col) => col.notNull())
      .addColumn("created_at", "bigint", (col) => col.notNull())
      .addPrimaryKeyConstraint("memberships_pk", ["user_id", "org_id"])
      .execute();
    await db.schema.createIndex("memberships_org").on("memberships").column("org_id").execute();
    await db.schema
      .createTable("console_sessions")
      // SHA-256 of the cookie's value: a copy of the database signs nobody in.
      .addColumn("token_hash", "text", (col) => col.primaryKey())
      .addColumn("user_id", "text", (col) => col.notNull().references("console_users.id").onDelete("cascade"))
      .addColumn("created_at", "bigint", (col) => col.notNull())
      // Moved forward as the session is used (at most once a minute); 12 hours after it, the session ends.
      .addColumn("last_seen_at", "bigint", (col) => col.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("console_sessions_user").on("console_sessions").column("user_id").execute();
  },
};
