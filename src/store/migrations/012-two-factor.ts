import type { Kysely, Migration } from "kysely";

/**
 * Two-factor sign-in for console users (docs/console.md): the user's TOTP secret, and the last time
 * step a code of theirs was accepted at, so that a code works once even when two nodes see it.
 */
export const twoFactor: Migration = {
  async up(db: Kysely<unknown>) {
    // Base32, as authenticator apps take it; null while two-factor is off. Unlike a password it cannot
    // be hashed: every sign-in computes the expected code from it.
    await db.schema.alterTable("console_users").addColumn("totp_secret", "text").execute();
    await db.schema.alterTable("console_users").addColumn("totp_last_step", "bigint").execute();
  },
};
