import { LatchkeyError } from "./errors.js";
import { type Grant, grantAllows, type Permission } from "./permissions.js";

/**
 * Authority rules (docs/authority.md). A caller has authority over a permission when it holds it or is
 * an all-future key; only an all-future caller may grant all-future access or touch a key that has it.
 * Each check throws `insufficient_authority` naming exactly what the caller lacks.
 */
function assertAuthorityOver(caller: Grant, grants: readonly Grant[], action: string): void {
  if (caller.allFuturePermissions) return;
  if (grants.some((grant) => grant.allFuturePermissions)) {
    throw new LatchkeyError(
      "insufficient_authority",
      `Only a key with all_future_permissions may ${action} a key with all_future_permissions.`,
    );
  }
  const lacking = new Set<Permission>();
  for (const grant of grants) {
    for (const permission of grant.permissions) {
      if (!grantAllows(caller, permission)) lacking.add(permission);
    }
  }
  if (lacking.size > 0) {
    const names = [...lacking].join(", ");
    throw new LatchkeyError(
      "insufficient_authority",
      `The calling key cannot ${action} a key with permissions it does not hold itself: ${names}.`,
    );
  }
}

/** Creating needs authority over every requested permission (and all-future access, if requested). */
export function assertCanCreate(caller: Grant, requested: Grant): void {
  assertAuthorityOver(caller, [requested], "grant");
}

/** Updating needs authority over the target's existing grant and the requested one, even for a rename. */
export function assertCanUpdate(caller: Grant, existing: Grant, requested: Grant): void {
  assertAuthorityOver(caller, [existing], "change");
  assertAuthorityOver(caller, [requested], "grant");
}

/** Disabling needs authority over the target's existing grant. */
export function assertCanDisable(caller: Grant, existing: Grant): void {
  assertAuthorityOver(caller, [existing], "disable");
}

/** Rolling a key's secret needs authority over the key's existing grant. */
export function assertCanRoll(caller: Grant, existing: Grant): void {
  assertAuthorityOver(caller, [existing], "roll");
}
