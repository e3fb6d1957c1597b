import { LatchkeyError, type ValidationIssue } from "./errors.js";
import { type KeyMetadata, metadataIssues } from "./key-metadata.js";
import { allowedCidrsIssues } from "./networks.js";

/** The request members of create and update that latchkey adds to the spec's key configuration. */
export interface NetworksAndMetadataInput {
  /** Networks the key may be used from; null: any address; omitted: kept (on create: any). */
  allowed_cidrs?: readonly string[] | null | undefined;
  /** String members to search keys by; null clears; omitted: kept (on create: none). */
  metadata?: Readonly<Record<string, unknown>> | null | undefined;
}

/** What a create or update sets; an absent member is kept as it is (on create: null). */
export interface NetworksAndMetadataChange {
  allowedCidrs?: readonly string[] | null;
  metadata?: KeyMetadata | null;
}

/**
 * Validates `allowed_cidrs` and `metadata`. Unlike the spec's fields, an update that omits them keeps
 * them, so a client that does not know them (the official hcti.io clients) never clears them by
 * accident. `[]` is refused (it would lock the key out of everywhere: disable it instead), and `{}` is
 * stored as null, the one way a key says it has no metadata.
 */
export function parseNetworksAndMetadata(input: NetworksAndMetadataInput): NetworksAndMetadataChange {
  const issues: ValidationIssue[] = [];
  const change: NetworksAndMetadataChange = {};
  const cidrs = input.allowed_cidrs;
  if (cidrs === null) change.allowedCidrs = null;
  else if (cidrs !== undefined) {
    if (cidrs.length === 0) {
      issues.push({
        path: "/allowed_cidrs",
        message: "must list at least one network: null allows any address, and disabling stops a key",
      });
    } else issues.push(...allowedCidrsIssues(cidrs));
    change.allowedCidrs = [...cidrs];
  }
  const metadata = input.metadata;
  if (metadata === null) change.metadata = null;
  else if (metadata !== undefined) {
    issues.push(...metadataIssues(metadata));
    const members = Object.entries(metadata) as [string, string][];
    change.metadata = members.length === 0 ? null : Object.fromEntries(members);
  }
  if (issues.length > 0) {
    const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
    throw new LatchkeyError("invalid_request", `Invalid key configuration: ${summary}.`, {
      validationErrors: issues,
    });
  }
  return change;
}
