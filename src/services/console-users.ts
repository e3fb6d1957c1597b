import type { AuditAction, AuditEntry } from "../domain/audit.js";
import { OPERATOR_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { type RevocationReason, revocationEntry } from "../domain/connection-revocations.js";
import { canManageKeys, type ConsoleRole, isConsoleRole, userActor } from "../domain/console-roles.js";
import { randomBase62 } from "../domain/credentials.js";
import { invalidRequest, LatchkeyError } from "../domain/errors.js";
import { hashPassword, type PasswordCost, passwordProblem } from "../domain/passwords.js";
import { isTotpSecret, totpStep } from "../domain/totp.js";
import type {
  ConnectionRevocation,
  ConsoleStore,
  ConsoleUser,
  Invitation,
  InvitationView,
  Membership,
  MembershipView,
} from "../store/console-store.js";
import type { OrganizationDirectory } from "../store/key-store.js";
import { membershipSnapshot, userSnapshot } from "./audit-snapshots.js";
import { newAuditId } from "./audit-trail.js";

/** What an email must look like: something@something, no spaces, at most 254 characters. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalizeEmail(value: string): string {
  const email = value.trim();
  if (!EMAIL.test(email) || email.length > 254) {
    throw invalidRequest(`"${email}" is not an email address.`, "/email");
  }
  return email;
}

function assertRole(role: string): ConsoleRole {
  if (!isConsoleRole(role))
    throw invalidRequest(`Role "${role}" is not one of owner, admin, member.`, "/role");
  return role;
}

function lastOwner(orgId: string): LatchkeyError {
  return new LatchkeyError(
    "invalid_request",
    `That would leave organization ${orgId} without an owner: make someone else owner first.`,
  );
}

/** Console users and their memberships: what `latchkey user ...` and the members page do. */
export interface ConsoleUserService {
  /**
   * Creates a user with a role in an organization, or, when the email already has an account, gives
   * that account the role there (the password is then left as it is and may be omitted).
   */
  add(
    input: { email: string; password?: string; orgId: string; role: string },
    actor?: string,
  ): Promise<{
    user: ConsoleUser;
    created: boolean;
  }>;
  /**
   * An owner's "add a member" in the console: an invitation, whether or not the email has an account
   * (the answer is the same, and nothing of an account outside the organization is shown). With a
   * `password` and no account yet, the account is made (without a membership) so the person can sign
   * in; an existing account's password is left as it is. The person accepts after signing in.
   */
  invite(
    input: { email: string; password?: string; orgId: string; role: string },
    actor: string,
  ): Promise<void>;
  /** An organization's invitations waiting for an answer. */
  invitationsOf(orgId: string): Promise<Invitation[]>;
  /** The invitations waiting for a signed-in user. */
  invitationsFor(user: ConsoleUser): Promise<InvitationView[]>;
  /** The signed-in user accepts an invitation: a member of `orgId` with the invited role from now. */
  acceptInvitation(user: ConsoleUser, orgId: string): Promise<void>;
  /** The signed-in user declines an invitation. */
  declineInvitation(user: ConsoleUser, orgId: string): Promise<void>;
  /** An owner withdraws an invitation of their organization. */
  revokeInvitation(input: { orgId: string; email: string }, actor: string): Promise<void>;
  /** Every membership (or those of one organization), with email and organization name. */
  list(orgId?: string): Promise<MembershipView[]>;
  /** The organizations a user is a member of, with the role in each (the console's switcher). */
  membershipsOf(userId: string): Promise<MembershipView[]>;
  /** Users without any membership left, which `list` cannot show. */
  unattached(): Promise<ConsoleUser[]>;
  /** Removes the user's membership of `orgId`, or the whole user (sessions included) without it. */
  remove(input: { email: string; orgId?: string }, actor?: string): Promise<void>;
  /** Changes a member's role. */
  setRole(input: { userId: string; orgId: string; role: string }, actor: string): Promise<void>;
  /** Removes a member by id (the members page). */
  removeMember(input: { userId: string; orgId: string }, actor: string): Promise<void>;
  /**
   * The operator sets a user's password (`latchkey user password`, for a forgotten one): every
   * session of the user is revoked.
   */
  resetPassword(input: { email: string; password: string }, actor?: string): Promise<void>;
  /**
   * A signed-in user's new password (the account page, after the current one was confirmed): every
   * other session of theirs is revoked, `keepSession` (the browser that changed it) stays.
   */
  changePassword(input: { user: ConsoleUser; password: string; keepSession: string }): Promise<void>;
  /**
   * Turns a user's two-factor sign-in on with the secret their authenticator app took, once `code`
   * shows the app has it (the account page; the code is then used up).
   */
  enableTwoFactor(input: { user: ConsoleUser; secret: string; code: string }): Promise<void>;
  /** A signed-in user turns their own two-factor sign-in off (the account page). */
  disableTwoFactor(user: ConsoleUser): Promise<void>;
  /** The operator turns a user's two-factor sign-in off (`latchkey user two-factor-off`: a lost phone). */
  resetTwoFactor(input: { email: string }, actor?: string): Promise<void>;
}

export function createConsoleUserService(deps: {
  store: ConsoleStore;
  keys: Pick<OrganizationDirectory, "findOrganization">;
  clock: Clock;
  /** How dear new password hashes are (LATCHKEY_PASSWORD_COST); the production cost when absent. */
  passwordCost?: PasswordCost;
  /** Told how many MCP connections a change to a person revoked, and why (the metric). */
  onConnectionsRevoked?: (reason: RevocationReason, count: number) => void;
}): ConsoleUserService {
  const { store, keys, clock, passwordCost } = deps;
  const hash = (password: string) => hashPassword(password, passwordCost);

  /** The user's MCP connections a change ends (docs/mcp-oauth.md: grants follow people). */
  function revocation(reason: RevocationReason, actor: string): ConnectionRevocation {
    return {
      audit: (connection) => {
        const at = clock.now();
        return revocationEntry({ id: newAuditId(at), at, actor, connection, reason });
      },
      revoked: (count) => deps.onConnectionsRevoked?.(reason, count),
    };
  }

  function entry(
    actor: string,
    action: AuditAction,
    orgId: string | null,
    targetId: string,
    before: AuditEntry["before"],
    after: AuditEntry["after"],
  ): AuditEntry {
    const at = clock.now();
    return { id: newAuditId(at), at, actor, orgId, action, targetId, before, after };
  }

  async function organization(orgId: string) {
    const org = await keys.findOrganization(orgId);
    if (!org) throw new LatchkeyError("not_found", `No organization with id "${orgId}".`);
    return org;
  }

  async function putMembership(membership: Membership, actor: string) {
    // A role that cannot grant a connection ends those the user granted there.
    const demoted = canManageKeys(membership.role) ? undefined : revocation("role_changed", actor);
    const done = await store.putMembership(
      membership,
      (before) =>
        entry(
          actor,
          before ? "membership.update" : "membership.create",
          membership.orgId,
          membership.userId,
          before ? membershipSnapshot(before) : null,
          membershipSnapshot(membership),
        ),
      demoted,
    );
    if (!done) throw lastOwner(membership.orgId);
  }

  async function removeMember(userId: string, orgId: string, actor: string) {
    const outcome = await store.removeMembership(
      userId,
      orgId,
      (before) => entry(actor, "membership.remove", orgId, userId, membershipSnapshot(before), null),
      revocation("member_removed", actor),
    );
    if (outcome === "last_owner") throw lastOwner(orgId);
    if (outcome === "absent") throw new LatchkeyError("not_found", `That user is not a member of ${orgId}.`);
  }

  /** The user an operator's command names by email; `not_found` when there is none. */
  async function userByEmail(typed: string): Promise<ConsoleUser> {
    const email = normalizeEmail(typed);
    const user = await store.findUserByEmail(email);
    if (!user) throw new LatchkeyError("not_found", `No console user with email "${email}".`);
    return user;
  }

  async function setPassword(
    user: ConsoleUser,
    password: string,
    keepSession: string | null,
    actor: string,
    reason: RevocationReason,
  ) {
    const problem = passwordProblem(password);
    if (problem) throw invalidRequest(`The new password ${problem}.`, "/password");
    // The snapshots name the user only: the trail says a password changed, never anything of it.
    const audit = entry(actor, "user.password.update", null, user.id, userSnapshot(user), userSnapshot(user));
    const ends = revocation(reason, actor);
    if (!(await store.setPassword(user.id, await hash(password), keepSession, audit, ends))) {
      throw new LatchkeyError("not_found", `No console user with email "${user.email}".`);
    }
  }

  async function setTotp(
    user: ConsoleUser,
    totp: { secret: string; step: number } | null,
    actor: string,
    ends?: ConnectionRevocation,
  ) {
    const snapshot = (on: boolean) => ({ ...userSnapshot(user), two_factor: on });
    const audit = entry(
      actor,
      "user.two_factor.update",
      null,
      user.id,
      snapshot(user.totpSecret !== null),
      snapshot(totp !== null),
    );
    if (!(await store.setTotp(user.id, totp, audit, ends))) {
      throw new LatchkeyError("not_found", `No console user with email "${user.email}".`);
    }
  }

  return {
    async add(input, actor = OPERATOR_ACTOR) {
      const email = normalizeEmail(input.email);
      const role = assertRole(input.role);
      await organization(input.orgId);
      const existing = await store.findUserByEmail(email);
      const now = clock.now();
      if (existing) {
        await putMembership({ userId: existing.id, orgId: input.orgId, role, createdAt: now }, actor);
        return { user: existing, created: false };
      }
      const password = input.password ?? "";
      const problem = passwordProblem(password);
      if (problem) throw invalidRequest(`The password ${problem}.`, "/password");
      const user: ConsoleUser = {
        id: `usr_${randomBase62(22)}`,
        email,
        passwordHash: await hash(password),
        createdAt: now,
        totpSecret: null,
      };
      const membership: Membership = { userId: user.id, orgId: input.orgId, role, createdAt: now };
      const audit = entry(actor, "user.create", input.orgId, user.id, null, {
        ...userSnapshot(user),
        role,
      });
      if (!(await store.insertUser(user, membership, audit))) {
        // Created meanwhile by someone else: join that account instead.
        return this.add(input, actor);
      }
      return { user, created: true };
    },

    async invite(input, actor) {
      const email = normalizeEmail(input.email);
      const role = assertRole(input.role);
      await organization(input.orgId);
      // Checked whether or not the account exists, so that this answer tells nothing either.
      if (input.password !== undefined) {
        const problem = passwordProblem(input.password);
        if (problem) throw invalidRequest(`The initial password ${problem}.`, "/password");
      }
      const members = await store.listMemberships(input.orgId);
      if (members.some((m) => m.email.toLowerCase() === email.toLowerCase())) {
        throw invalidRequest(
          `${email} is already a member of this organization; change their role above.`,
          "/email",
        );
      }
      const now = clock.now();
      if (input.password !== undefined && !(await store.findUserByEmail(email))) {
        const user: ConsoleUser = {
          id: `usr_${randomBase62(22)}`,
          email,
          passwordHash: await hash(input.password),
          createdAt: now,
          totpSecret: null,
        };
        // Made meanwhile by someone else: then that account is the one invited, as it would be anyway.
        await store.insertUser(
          user,
          undefined,
          entry(actor, "user.create", null, user.id, null, userSnapshot(user)),
        );
      }
      const invitation: Invitation = {
        orgId: input.orgId,
        email: email.toLowerCase(),
        role,
        invitedBy: actor,
        createdAt: now,
      };
      await store.putInvitation(
        invitation,
        entry(actor, "membership.invite", input.orgId, invitation.email, null, {
          email: invitation.email,
          role,
        }),
      );
    },

    invitationsOf: (orgId) => store.invitationsOf(orgId),
    invitationsFor: (user) => store.invitationsFor(user.email),

    async acceptInvitation(user, orgId) {
      const accepted = await store.acceptInvitation(orgId, user, (invitation) =>
        entry(userActor(user.id), "membership.invitation_accept", orgId, user.id, null, {
          user_id: user.id,
          email: user.email,
          role: invitation.role,
        }),
      );
      if (!accepted) throw new LatchkeyError("not_found", "There is no such invitation for you.");
    },

    async declineInvitation(user, orgId) {
      const email = user.email.toLowerCase();
      const audit = entry(userActor(user.id), "membership.invitation_remove", orgId, email, { email }, null);
      if (!(await store.deleteInvitation(orgId, email, audit)))
        throw new LatchkeyError("not_found", "There is no such invitation for you.");
    },

    async revokeInvitation({ orgId, email }, actor) {
      const lower = email.toLowerCase();
      const audit = entry(actor, "membership.invitation_remove", orgId, lower, { email: lower }, null);
      if (!(await store.deleteInvitation(orgId, lower, audit)))
        throw new LatchkeyError("not_found", `No invitation of ${lower} in this organization.`);
    },

    list: (orgId) => store.listMemberships(orgId),
    membershipsOf: (userId) => store.membershipsOf(userId),

    async unattached() {
      const attached = new Set((await store.listMemberships()).map((m) => m.userId));
      return (await store.listUsers()).filter((user) => !attached.has(user.id));
    },

    async remove(input, actor = OPERATOR_ACTOR) {
      const email = normalizeEmail(input.email);
      const user = await userByEmail(email);
      if (input.orgId !== undefined) return removeMember(user.id, input.orgId, actor);
      const outcome = await store.removeUser(
        user.id,
        entry(actor, "user.remove", null, user.id, userSnapshot(user), null),
        revocation("user_removed", actor),
      );
      if (outcome === "last_owner") {
        throw new LatchkeyError(
          "invalid_request",
          `${email} is the last owner of an organization: make someone else owner first.`,
        );
      }
      if (outcome === "absent")
        throw new LatchkeyError("not_found", `No console user with email "${email}".`);
    },

    async setRole({ userId, orgId, role }, actor) {
      const checked = assertRole(role);
      const current = (await store.membershipsOf(userId)).find((m) => m.orgId === orgId);
      if (!current) throw new LatchkeyError("not_found", `That user is not a member of ${orgId}.`);
      await putMembership({ userId, orgId, role: checked, createdAt: current.createdAt }, actor);
    },

    removeMember: ({ userId, orgId }, actor) => removeMember(userId, orgId, actor),

    async resetPassword(input, actor = OPERATOR_ACTOR) {
      await setPassword(await userByEmail(input.email), input.password, null, actor, "password_reset");
    },

    changePassword: ({ user, password, keepSession }) =>
      setPassword(user, password, keepSession, userActor(user.id), "password_changed"),

    async enableTwoFactor({ user, secret, code }) {
      if (!isTotpSecret(secret)) throw invalidRequest("That two-factor secret is not one latchkey made.");
      const step = totpStep(secret, code, clock.now());
      if (step === null) {
        throw invalidRequest(
          "That code does not match: check the app's clock and enter the code it shows now.",
          "/code",
        );
      }
      await setTotp(user, { secret, step }, userActor(user.id));
    },

    disableTwoFactor: (user) => setTotp(user, null, userActor(user.id)),

    async resetTwoFactor(input, actor = OPERATOR_ACTOR) {
      // A lost phone may be in someone else's hands: what the user granted ends with it.
      await setTotp(await userByEmail(input.email), null, actor, revocation("two_factor_reset", actor));
    },
  };
}
