import type { Kysely } from "kysely";
import type { ConsoleRole } from "../domain/console-roles.js";
import type { ConsoleStore, Invitation } from "./console-store.js";
import { insertAuditEntry } from "./kysely-audit-store.js";
import type { ConsoleInvitationsTable, Database } from "./schema.js";

const toInvitation = (row: ConsoleInvitationsTable): Invitation => ({
  orgId: row.org_id,
  email: row.email,
  role: row.role as ConsoleRole,
  invitedBy: row.invited_by,
  createdAt: Number(row.created_at),
});

type InvitationMethods = Pick<
  ConsoleStore,
  "putInvitation" | "invitationsOf" | "invitationsFor" | "acceptInvitation" | "deleteInvitation"
>;

/** The invitations part of the console store (kysely-console-store.ts spreads it in). */
export function kyselyConsoleInvitations(db: Kysely<Database>): InvitationMethods {
  return {
    async putInvitation(invitation, audit) {
      await db.transaction().execute(async (trx) => {
        const row = {
          org_id: invitation.orgId,
          email: invitation.email.toLowerCase(),
          role: invitation.role,
          invited_by: invitation.invitedBy,
          created_at: invitation.createdAt,
        };
        await trx
          .insertInto("console_invitations")
          .values(row)
          .onConflict((conflict) =>
            conflict.columns(["org_id", "email"]).doUpdateSet({
              role: row.role,
              invited_by: row.invited_by,
              created_at: row.created_at,
            }),
          )
          .execute();
        await insertAuditEntry(trx, audit);
      });
    },

    async invitationsOf(orgId) {
      const rows = await db
        .selectFrom("console_invitations")
        .selectAll()
        .where("org_id", "=", orgId)
        .orderBy("created_at")
        .orderBy("email")
        .execute();
      return rows.map(toInvitation);
    },

    async invitationsFor(email) {
      const rows = await db
        .selectFrom("console_invitations")
        .innerJoin("organizations", "organizations.id", "console_invitations.org_id")
        .selectAll("console_invitations")
        .select("organizations.name as org_name")
        .where("console_invitations.email", "=", email.toLowerCase())
        .orderBy("console_invitations.created_at")
        .execute();
      return rows.map((row) => ({ ...toInvitation(row), orgName: row.org_name }));
    },

    async acceptInvitation(orgId, user, audit) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .deleteFrom("console_invitations")
          .where("org_id", "=", orgId)
          .where("email", "=", user.email.toLowerCase())
          .returningAll()
          .executeTakeFirst();
        if (!row) return false;
        const invitation = toInvitation(row);
        const entry = audit(invitation);
        const member = await trx
          .selectFrom("memberships")
          .select("role")
          .where("user_id", "=", user.id)
          .where("org_id", "=", orgId)
          .executeTakeFirst();
        // Already a member (added by the operator meanwhile): the invitation is used up, the role kept.
        if (!member) {
          await trx
            .insertInto("memberships")
            .values({ user_id: user.id, org_id: orgId, role: invitation.role, created_at: entry.at })
            .execute();
        }
        await insertAuditEntry(trx, entry);
        return true;
      });
    },

    async deleteInvitation(orgId, email, audit) {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .deleteFrom("console_invitations")
          .where("org_id", "=", orgId)
          .where("email", "=", email.toLowerCase())
          .executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) return false;
        await insertAuditEntry(trx, audit);
        return true;
      });
    },
  };
}
