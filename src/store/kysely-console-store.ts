import { type Kysely, type Transaction, sql } from "kysely";
import type { ConsoleRole } from "../domain/console-roles.js";
import type {
  ConnectionRevocation,
  ConsoleSession,
  ConsoleStore,
  ConsoleUser,
  Membership,
  MembershipView,
} from "./console-store.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import { revokeConnectionsOf } from "./kysely-connection-revocations.js";
import { kyselyConsoleInvitations } from "./kysely-console-invitations.js";
import type { ConsoleSessionsTable, ConsoleUsersTable, Database, MembershipsTable } from "./schema.js";

const toUser = (row: ConsoleUsersTable): ConsoleUser => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  createdAt: Number(row.created_at),
  totpSecret: row.totp_secret,
});

const toMembership = (row: MembershipsTable): Membership => ({
  userId: row.user_id,
  orgId: row.org_id,
  role: row.role as ConsoleRole,
  createdAt: Number(row.created_at),
});

const fromMembership = (membership: Membership): MembershipsTable => ({
  user_id: membership.userId,
  org_id: membership.orgId,
  role: membership.role,
  created_at: membership.createdAt,
});

const toSession = (row: ConsoleSessionsTable): ConsoleSession => ({
  tokenHash: row.token_hash,
  userId: row.user_id,
  createdAt: Number(row.created_at),
  lastSeenAt: Number(row.last_seen_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
});

/** Memberships joined with their user's email and their organization's name. */
function membershipViews(db: Kysely<Database> | Transaction<Database>) {
  return db
    .selectFrom("memberships")
    .innerJoin("console_users", "console_users.id", "memberships.user_id")
    .innerJoin("organizations", "organizations.id", "memberships.org_id")
    .select([
      "memberships.user_id",
      "memberships.org_id",
      "memberships.role",
      "memberships.created_at",
      "console_users.email",
      "console_users.totp_secret",
      "organizations.name as org_name",
      "organizations.disabled_at as org_disabled_at",
    ]);
}

type ViewRow = MembershipsTable & {
  email: string;
  org_name: string;
  totp_secret: string | null;
  org_disabled_at?: number | null;
};
const toView = (row: ViewRow): MembershipView => ({
  ...toMembership(row),
  email: row.email,
  orgName: row.org_name,
  twoFactor: row.totp_secret !== null,
  organizationDisabled: row.org_disabled_at != null,
});

async function ownerCount(trx: Transaction<Database>, orgId: string): Promise<number> {
  const row = await trx
    .selectFrom("memberships")
    .select((eb) => eb.fn.countAll<number>().as("owners"))
    .where("org_id", "=", orgId)
    .where("role", "=", "owner")
    .executeTakeFirst();
  return Number(row?.owners ?? 0);
}

/**
 * Runs a change to a person in one transaction with the revocation of their connections it entails;
 * `revoke` (inside the transaction) resolves how many it revoked, told to `revocation` once committed.
 */
async function withRevocation<T>(
  db: Kysely<Database>,
  revocation: ConnectionRevocation | undefined,
  change: (
    trx: Transaction<Database>,
    revoke: (who: { userId: string; orgId?: string }, at: number) => Promise<void>,
  ) => Promise<T>,
): Promise<T> {
  let count = 0;
  const result = await db.transaction().execute((trx) =>
    change(trx, async (who, at) => {
      if (revocation) count += await revokeConnectionsOf(trx, who, at, (c) => revocation.audit(c));
    }),
  );
  if (count > 0) revocation?.revoked(count);
  return result;
}

export function createKyselyConsoleStore(db: Kysely<Database>): ConsoleStore {
  const findMembership = (trx: Transaction<Database>, userId: string, orgId: string) =>
    trx
      .selectFrom("memberships")
      .selectAll()
      .where("user_id", "=", userId)
      .where("org_id", "=", orgId)
      .executeTakeFirst();

  return {
    ...kyselyConsoleInvitations(db),
    async insertUser(user, membership, audit) {
      return db.transaction().execute(async (trx) => {
        const taken = await trx
          .selectFrom("console_users")
          .select("id")
          .where(sql<string>`lower(email)`, "=", user.email.toLowerCase())
          .executeTakeFirst();
        if (taken) return false;
        await trx
          .insertInto("console_users")
          .values({
            id: user.id,
            email: user.email,
            password_hash: user.passwordHash,
            created_at: user.createdAt,
            totp_secret: user.totpSecret,
            totp_last_step: null,
          })
          .execute();
        if (membership) await trx.insertInto("memberships").values(fromMembership(membership)).execute();
        await insertAuditEntry(trx, audit);
        return true;
      });
    },

    async findUserByEmail(email) {
      const row = await db
        .selectFrom("console_users")
        .selectAll()
        .where(sql<string>`lower(email)`, "=", email.toLowerCase())
        .executeTakeFirst();
      return row && toUser(row);
    },

    async findUserById(id) {
      const row = await db.selectFrom("console_users").selectAll().where("id", "=", id).executeTakeFirst();
      return row && toUser(row);
    },

    async listMemberships(orgId) {
      let select = membershipViews(db);
      if (orgId !== undefined) select = select.where("memberships.org_id", "=", orgId);
      const rows = await select
        .orderBy("console_users.created_at")
        .orderBy("console_users.id")
        .orderBy("organizations.name")
        .execute();
      return rows.map((row) => toView(row as ViewRow));
    },

    async listUsers() {
      const rows = await db
        .selectFrom("console_users")
        .selectAll()
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map(toUser);
    },

    async membershipsOf(userId) {
      const rows = await membershipViews(db)
        .where("memberships.user_id", "=", userId)
        .orderBy("organizations.name")
        .execute();
      return rows.map((row) => toView(row as ViewRow));
    },

    async putMembership(membership, audit, revocation) {
      return withRevocation(db, revocation, async (trx, revoke) => {
        const row = await findMembership(trx, membership.userId, membership.orgId);
        const before = row && toMembership(row);
        if (before?.role === "owner" && membership.role !== "owner") {
          if ((await ownerCount(trx, membership.orgId)) <= 1) return false;
        }
        if (before) {
          await trx
            .updateTable("memberships")
            .set({ role: membership.role })
            .where("user_id", "=", membership.userId)
            .where("org_id", "=", membership.orgId)
            .execute();
        } else {
          await trx.insertInto("memberships").values(fromMembership(membership)).execute();
        }
        const entry = audit(before);
        await insertAuditEntry(trx, entry);
        await revoke({ userId: membership.userId, orgId: membership.orgId }, entry.at);
        return true;
      });
    },

    async removeMembership(userId, orgId, audit, revocation) {
      return withRevocation(db, revocation, async (trx, revoke) => {
        const row = await findMembership(trx, userId, orgId);
        if (!row) return "absent" as const;
        if (row.role === "owner" && (await ownerCount(trx, orgId)) <= 1) return "last_owner" as const;
        const entry = audit(toMembership(row));
        // Revoked (and audited) before the membership goes, which deletes them (the foreign key).
        await revoke({ userId, orgId }, entry.at);
        await trx
          .deleteFrom("memberships")
          .where("user_id", "=", userId)
          .where("org_id", "=", orgId)
          .execute();
        await insertAuditEntry(trx, entry);
        return "removed" as const;
      });
    },

    async removeUser(userId, audit, revocation) {
      return withRevocation(db, revocation, async (trx, revoke) => {
        const user = await trx
          .selectFrom("console_users")
          .select("id")
          .where("id", "=", userId)
          .executeTakeFirst();
        if (!user) return "absent" as const;
        const owned = await trx
          .selectFrom("memberships")
          .select("org_id")
          .where("user_id", "=", userId)
          .where("role", "=", "owner")
          .execute();
        for (const { org_id } of owned) {
          if ((await ownerCount(trx, org_id)) <= 1) return "last_owner" as const;
        }
        await revoke({ userId }, audit.at);
        // Sessions and memberships first: PostgreSQL and SQLite both cascade, but saying it costs nothing.
        await trx.deleteFrom("console_sessions").where("user_id", "=", userId).execute();
        await trx.deleteFrom("memberships").where("user_id", "=", userId).execute();
        await trx.deleteFrom("console_users").where("id", "=", userId).execute();
        await insertAuditEntry(trx, audit);
        return "removed" as const;
      });
    },

    async setPassword(userId, passwordHash, keepSession, audit, revocation) {
      return withRevocation(db, revocation, async (trx, revoke) => {
        const updated = await trx
          .updateTable("console_users")
          .set({ password_hash: passwordHash })
          .where("id", "=", userId)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return false;
        let others = trx
          .updateTable("console_sessions")
          .set({ revoked_at: audit.at })
          .where("user_id", "=", userId)
          .where("revoked_at", "is", null);
        if (keepSession !== null) others = others.where("token_hash", "!=", keepSession);
        await others.execute();
        await insertAuditEntry(trx, audit);
        await revoke({ userId }, audit.at);
        return true;
      });
    },

    async setTotp(userId, totp, audit, revocation) {
      return withRevocation(db, revocation, async (trx, revoke) => {
        const updated = await trx
          .updateTable("console_users")
          .set({ totp_secret: totp?.secret ?? null, totp_last_step: totp?.step ?? null })
          .where("id", "=", userId)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return false;
        await insertAuditEntry(trx, audit);
        await revoke({ userId }, audit.at);
        return true;
      });
    },

    async takeTotpStep(userId, step) {
      const updated = await db
        .updateTable("console_users")
        .set({ totp_last_step: step })
        .where("id", "=", userId)
        .where("totp_secret", "is not", null)
        .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async insertSession(session) {
      await db
        .insertInto("console_sessions")
        .values({
          token_hash: session.tokenHash,
          user_id: session.userId,
          created_at: session.createdAt,
          last_seen_at: session.lastSeenAt,
          revoked_at: session.revokedAt,
        })
        .execute();
    },

    async findSession(tokenHash) {
      const row = await db
        .selectFrom("console_sessions")
        .selectAll()
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst();
      return row && toSession(row);
    },

    async touchSession(tokenHash, at) {
      await db
        .updateTable("console_sessions")
        .set({ last_seen_at: at })
        .where("token_hash", "=", tokenHash)
        .execute();
    },

    async revokeSession(tokenHash, at) {
      await db
        .updateTable("console_sessions")
        .set({ revoked_at: at })
        .where("token_hash", "=", tokenHash)
        .where("revoked_at", "is", null)
        .execute();
    },
  };
}
