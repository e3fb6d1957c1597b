import { LatchkeyError } from "./errors.js";

/**
 * The refusal of a disabled organization's keys, OAuth connections and console users
 * (docs/provisioning.md): a 403, not a 401, so the caller learns its credentials are fine and that the
 * platform switched its organization off. Its data is kept; enabling restores everything.
 */
export function organizationDisabled(): LatchkeyError {
  return new LatchkeyError(
    "organization_disabled",
    "This organization is disabled by the platform; its keys, connections and console users are " +
      "refused until it is enabled again. Contact support.",
  );
}

/** The 409 of a name another organization has, ignoring case. */
export function nameTaken(name: string): LatchkeyError {
  return new LatchkeyError("organization_name_taken", `An organization named '${name}' already exists.`);
}

/** The 409 of an `external_id` another organization has. */
export function externalIdTaken(externalId: string): LatchkeyError {
  return new LatchkeyError(
    "external_id_taken",
    `Another organization already has the external_id '${externalId}'; find it with ` +
      `GET /v1/admin/organizations?external_id=...`,
  );
}
