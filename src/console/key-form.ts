import { invalidRequest } from "../domain/errors.js";
import { METADATA_NAME } from "../domain/key-metadata.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import type { KeyInput, RollInput } from "../services/key-service.js";

/**
 * The key form as text, the way the page shows it: from a stored key (to edit it) or from what was
 * submitted (to show it again beside the service's refusal, nothing typed lost).
 */
export interface KeyFormValues {
  name: string;
  description: string;
  permissions: readonly string[];
  allFuture: boolean;
  /** A `datetime-local` value read as UTC (`2026-12-01T10:00`), or empty for no expiry. */
  expires: string;
  /** One CIDR a line; empty: any address. */
  allowedCidrs: string;
  /** One `name=value` a line; empty: none. */
  metadata: string;
}

/** Epoch milliseconds as a `datetime-local` value in UTC, to the minute. */
export function utcInputValue(ms: number | null): string {
  return ms === null ? "" : new Date(ms).toISOString().slice(0, 16);
}

export function formValuesOfKey(key: ApiKeyRecord): KeyFormValues {
  return {
    name: key.name,
    description: key.description ?? "",
    permissions: key.permissions,
    allFuture: key.allFuturePermissions,
    expires: utcInputValue(key.expiresAt),
    allowedCidrs: (key.allowedCidrs ?? []).join("\n"),
    metadata: Object.entries(key.metadata ?? {})
      .map(([name, value]) => `${name}=${value}`)
      .join("\n"),
  };
}

export function formValuesOfSubmission(form: URLSearchParams): KeyFormValues {
  return {
    name: form.get("name") ?? "",
    description: form.get("description") ?? "",
    permissions: form.getAll("permissions"),
    allFuture: form.get("all_future_permissions") === "true",
    expires: form.get("expires_at") ?? "",
    allowedCidrs: form.get("allowed_cidrs") ?? "",
    metadata: form.get("metadata") ?? "",
  };
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");

/**
 * A `datetime-local` value (no zone: the form labels it UTC) as RFC 3339; anything else is passed on
 * as it is, for the service to refuse with its own message.
 */
function expiryOf(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return `${value}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value)) return `${value}Z`;
  return value;
}

/** `name=value` lines as metadata; a line without `=`, or a name given twice, is a 400. */
function metadataOf(text: string): Record<string, string> | null {
  const metadata = Object.create(null) as Record<string, string>;
  for (const line of lines(text)) {
    const at = line.indexOf("=");
    if (at <= 0) throw invalidRequest(`Metadata line "${line}" is not of the form name=value.`, "/metadata");
    const name = line.slice(0, at).trim();
    if (name in metadata) throw invalidRequest(`Metadata name "${name}" is given twice.`, "/metadata");
    metadata[name] = line.slice(at + 1).trim();
  }
  return Object.keys(metadata).length === 0 ? null : { ...metadata };
}

/**
 * A submitted key form as the key service's input: the same rules as REST apply from there on. The
 * networks and metadata boxes replace what the key had (an empty box: any address, no metadata). An
 * empty expiry, or on edit the expiry the form was shown with, leaves the expiry as it is.
 */
export function keyInputOf(form: URLSearchParams, editing?: ApiKeyRecord): KeyInput {
  const values = formValuesOfSubmission(form);
  const cidrs = lines(values.allowedCidrs);
  const expires = values.expires.trim();
  const keepExpiry =
    expires === "" || (editing !== undefined && expires === utcInputValue(editing.expiresAt));
  return {
    name: form.get("name"),
    description: form.get("description"),
    permissions: values.allFuture ? [] : [...values.permissions],
    all_future_permissions: values.allFuture,
    ...(editing ? { disabled: form.get("disabled") === "true" } : {}),
    ...(keepExpiry ? {} : { expires_at: expiryOf(expires) }),
    allowed_cidrs: cidrs.length === 0 ? null : cidrs,
    metadata: metadataOf(values.metadata),
  };
}

/** The roll form's overlap: empty is 0; anything but digits reaches the service as not a number. */
export function rollInputOf(form: URLSearchParams): RollInput {
  const overlap = (form.get("overlap_seconds") ?? "").trim();
  if (overlap === "") return {};
  return { overlap_seconds: /^\d+$/.test(overlap) ? Number(overlap) : Number.NaN };
}

/** The list's one metadata filter, `name=value`; empty: none. */
export function metadataFilterOf(text: string): Record<string, string> | undefined {
  const filter = text.trim();
  if (filter === "") return undefined;
  const at = filter.indexOf("=");
  const name = filter.slice(0, at).trim();
  if (at <= 0 || !METADATA_NAME.test(name)) {
    throw invalidRequest(
      `The metadata filter "${filter}" is not of the form name=value (a name of letters, digits, "_", "." or "-").`,
      "metadata",
    );
  }
  return { [name]: filter.slice(at + 1).trim() };
}
