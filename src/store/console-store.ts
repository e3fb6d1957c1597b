import type { AuditEntry } from "../domain/audit.js";
import type { ConsoleRole } from "../domain/console-roles.js";

/** A console user as stored: never the password, only its scrypt hash. */
export interface ConsoleUser {
  /** `usr_...` identifier; the audit trail names the user `user:<id>`. */
  id: string;
  /** The sign-in name, as typed at creation; unique ignoring case. */
  email: string;
  /** `scrypt$N$r$p$salt$hash` (src/domain/passwords.ts). */
  passwordHash: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** The TOTP secret (base32) when two-factor sign-in is on; null while it is off. */
  totpSecret: string | null;
}

/** A user's role in one organization. */
export interface Membership {
  userId: string;
  orgId: string;
  role: ConsoleRole;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** A membership with what the console shows of its organization or its user. */
export interface MembershipView extends Membership {
  /** The organization's name. */
  orgName: string;
  /** The user's email. */
  email: string;
  /** Whether the user signs in with a two-factor code (never the key itself). */
  twoFactor: boolean;
  /** Whether the platform has the organization disabled: its pages are refused (403). */
  organizationDisabled: boolean;
}

/** One signed-in browser. */
export interface ConsoleSession {
  /** SHA-256 (hex) of the cookie's value. */
  tokenHash: string;
  userId: string;
  createdAt: number;
  /** Last request seen, to the minute; the session ends 12 hours after it. */
  lastSeenAt: number;
  /** Set by signing out or by a password change elsewhere; a revoked session is refused. */
  revokedAt: number | null;
}

/**
 * The MCP connections a change to a person ends, revoked in the change's own transaction (a
 * connection is its user's grant in one organization: docs/mcp-oauth.md).
 */
export interface ConnectionRevocation {
  /** The audit entry of each connection revoked. */
  audit(connection: { id: string; orgId: string }): AuditEntry;
  /** Told, once the change is committed, how many connections it revoked (the metric). */
  revoked(count: number): void;
}

/**
 * Users, memberships and sessions of the console. Every change takes the audit entry it is given
 * and writes it in its own transaction, as the other stores do.
 */
/** An invitation to an organization (docs/console.md, "Members and invitations"). */
export interface Invitation {
  orgId: string;
  /** Lower case. */
  email: string;
  role: ConsoleRole;
  invitedBy: string;
  createdAt: number;
}

/** An invitation as its invitee sees it: with the organization's name. */
export interface InvitationView extends Invitation {
  orgName: string;
}

export interface ConsoleStore {
  /**
   * Creates a user, with a first membership or none (an account made for an invitation); false when
   * the email is taken (nothing is written).
   */
  insertUser(user: ConsoleUser, membership: Membership | undefined, audit: AuditEntry): Promise<boolean>;
  /** Records an invitation (a repeat for the same organization and email replaces it), audited. */
  putInvitation(invitation: Invitation, audit: AuditEntry): Promise<void>;
  /** The invitations of one organization, oldest first. */
  invitationsOf(orgId: string): Promise<Invitation[]>;
  /** The invitations waiting for an email (ignoring case), with organization names. */
  invitationsFor(email: string): Promise<InvitationView[]>;
  /**
   * Accepts an invitation: the membership is created with the invited role and the invitation
   * deleted, in one transaction; false when there is no such invitation.
   */
  acceptInvitation(
    orgId: string,
    user: ConsoleUser,
    audit: (invitation: Invitation) => AuditEntry,
  ): Promise<boolean>;
  /** Deletes an invitation (declined or revoked); false when there was none. */
  deleteInvitation(orgId: string, email: string, audit: AuditEntry): Promise<boolean>;
  /** Finds a user by email, ignoring case. */
  findUserByEmail(email: string): Promise<ConsoleUser | undefined>;
  findUserById(id: string): Promise<ConsoleUser | undefined>;
  /** Every user with every membership, oldest user first; only those of `orgId` when given. */
  listMemberships(orgId?: string): Promise<MembershipView[]>;
  /** Every user, oldest first (users may have no membership left). */
  listUsers(): Promise<ConsoleUser[]>;
  /** The organizations a user belongs to, by name. */
  membershipsOf(userId: string): Promise<MembershipView[]>;
  /**
   * Adds or changes a membership, with its audit entry (built from the membership before, if any).
   * Refuses (false, nothing written) to take an organization's last owner away. With `revocation` (a
   * role that cannot grant connections), the user's connections in the organization are revoked.
   */
  putMembership(
    membership: Membership,
    audit: (before: Membership | undefined) => AuditEntry,
    revocation?: ConnectionRevocation,
  ): Promise<boolean>;
  /**
   * Removes a membership and revokes the user's connections in the organization; "last_owner" when it
   * is the organization's last owner, "absent" when none.
   */
  removeMembership(
    userId: string,
    orgId: string,
    audit: (before: Membership) => AuditEntry,
    revocation: ConnectionRevocation,
  ): Promise<"removed" | "absent" | "last_owner">;
  /**
   * Removes a user with its memberships, sessions and connections (revoked first, so the trail says
   * so); "last_owner" (nothing removed) when it is the last owner of an organization.
   */
  removeUser(
    userId: string,
    audit: AuditEntry,
    revocation: ConnectionRevocation,
  ): Promise<"removed" | "absent" | "last_owner">;
  /**
   * Replaces a user's password hash and revokes every session of theirs except `keepSession` (the
   * browser that made the change, if any) and every connection of theirs, with the audit entry; false
   * (nothing written) when the user is gone.
   */
  setPassword(
    userId: string,
    passwordHash: string,
    keepSession: string | null,
    audit: AuditEntry,
    revocation: ConnectionRevocation,
  ): Promise<boolean>;
  /**
   * Turns two-factor sign-in on with `secret` (its first code accepted at `step`) or off (null), with
   * the audit entry; false (nothing written) when the user is gone. With `revocation` (the operator's
   * reset), every connection of the user is revoked.
   */
  setTotp(
    userId: string,
    secret: { secret: string; step: number } | null,
    audit: AuditEntry,
    revocation?: ConnectionRevocation,
  ): Promise<boolean>;
  /**
   * Takes time step `step` for the user's code: true when no code of that step or a later one was
   * taken yet (one conditional write, so a code works once across every node).
   */
  takeTotpStep(userId: string, step: number): Promise<boolean>;
  insertSession(session: ConsoleSession): Promise<void>;
  findSession(tokenHash: string): Promise<ConsoleSession | undefined>;
  /** Moves `last_seen_at` forward. */
  touchSession(tokenHash: string, at: number): Promise<void>;
  /** Marks one session revoked (signing out). */
  revokeSession(tokenHash: string, at: number): Promise<void>;
}
