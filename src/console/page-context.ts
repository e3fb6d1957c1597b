import type { FastifyRequest } from "fastify";
import {
  canManageKeys,
  canManageMembers,
  canManageWebhooks,
  KEY_MANAGER_GRANT,
  userActor,
} from "../domain/console-roles.js";
import { LatchkeyError } from "../domain/errors.js";
import { organizationDisabled } from "../domain/organization-state.js";
import type { Caller } from "../services/key-service.js";
import type { ConsoleUserService } from "../services/console-users.js";
import type { HandoffSession } from "../services/secret-handoffs.js";
import type { PageContext } from "./layout.js";
import { signedIn } from "./request-guard.js";

/** Where every page finds the signed-in user's organizations and roles. */
export type Memberships = Pick<ConsoleUserService, "membershipsOf">;

/**
 * The signed-in user's view of one organization. An organization the user is not a member of is
 * answered 404, as the REST API answers another organization's key: its existence is not confirmed.
 */
export async function pageContext(
  request: FastifyRequest,
  users: Memberships,
  orgId: string,
): Promise<PageContext> {
  const session = signedIn(request);
  const memberships = await users.membershipsOf(session.user.id);
  const current = memberships.find((m) => m.orgId === orgId);
  if (!current) throw new LatchkeyError("not_found", "No such organization among yours.");
  if (current.organizationDisabled) throw organizationDisabled();
  return { signedIn: session, memberships, current };
}

/** The key service's caller for a console user: the organization, full authority, actor `user:<id>`. */
export function consoleCaller(context: PageContext): Caller {
  return { orgId: context.current.orgId, ...KEY_MANAGER_GRANT, actor: userActor(context.signedIn.user.id) };
}

/** The session a secret is handed to after a create or a roll (services/secret-handoffs.ts). */
export function handoffSession(context: PageContext): HandoffSession {
  return { tokenHash: context.signedIn.session.tokenHash, handoffKey: context.signedIn.handoffKey };
}

export function assertCanManageKeys(context: PageContext): void {
  if (!canManageKeys(context.current.role)) {
    throw new LatchkeyError(
      "missing_permission",
      `Your role in this organization (${context.current.role}) can read keys but not change them; an owner or admin can.`,
    );
  }
}

export function assertCanManageMembers(context: PageContext): void {
  if (!canManageMembers(context.current.role)) {
    throw new LatchkeyError(
      "missing_permission",
      "Only the organization's owners can see and change its members.",
    );
  }
}

export function assertCanManageWebhooks(context: PageContext): void {
  if (!canManageWebhooks(context.current.role)) {
    throw new LatchkeyError(
      "missing_permission",
      `Your role in this organization (${context.current.role}) cannot see its webhooks; an owner or admin can.`,
    );
  }
}
