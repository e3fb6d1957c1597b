import { LatchkeyError } from "./errors.js";

/**
 * What a service token may be used for (docs/provisioning.md): `authorize` (authorize and
 * forward-auth, what every token issued before scopes has) and `provision` (the `/v1/admin` routes).
 */
export const SERVICE_TOKEN_SCOPES = ["authorize", "provision"] as const;

export type ServiceTokenScope = (typeof SERVICE_TOKEN_SCOPES)[number];

/** Scopes of a token created without any named. */
export const DEFAULT_SERVICE_TOKEN_SCOPES: readonly ServiceTokenScope[] = ["authorize"];

export function isServiceTokenScope(value: string): value is ServiceTokenScope {
  return (SERVICE_TOKEN_SCOPES as readonly string[]).includes(value);
}

/**
 * Parses `authorize,provision` (commas, spaces allowed around them) into scopes in catalogue order,
 * duplicates folded; throws a message naming an unknown scope, or an empty list.
 */
export function parseServiceTokenScopes(text: string): ServiceTokenScope[] {
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) throw new Error(`name at least one scope: ${SERVICE_TOKEN_SCOPES.join(", ")}.`);
  const unknown = names.filter((name) => !isServiceTokenScope(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scope ${unknown.join(", ")}; the scopes are ${SERVICE_TOKEN_SCOPES.join(", ")}.`,
    );
  }
  return SERVICE_TOKEN_SCOPES.filter((scope) => names.includes(scope));
}

/** The 403 of a valid token used where it has no scope: the message names the scope it lacks. */
export function missingScope(scope: ServiceTokenScope): LatchkeyError {
  return new LatchkeyError(
    "missing_scope",
    `This service token does not have the ${scope} scope this route needs; create one with ` +
      `\`latchkey service-token create --scope ${scope}\`.`,
  );
}
