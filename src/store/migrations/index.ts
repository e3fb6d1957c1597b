import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { initial } from "./001-initial.js";
import { platform } from "./002-platform.js";
import { resources } from "./003-resources.js";
import { audit } from "./004-audit.js";
import { idempotency } from "./005-idempotency.js";
import { organizationNames } from "./006-organization-names.js";
import { networksAndMetadata } from "./008-networks-and-metadata.js";
import { keyExpiry } from "./007-key-expiry.js";
import { leaksAndImports } from "./009-leaks-and-imports.js";
import { consoleUsers } from "./010-console.js";
import { mcpOauth } from "./011-mcp-oauth.js";
import { twoFactor } from "./012-two-factor.js";
import { consoleSecretHandoffs } from "./014-console-secret-handoffs.js";
import { provisioning } from "./015-provisioning.js";
import { oauthGrants } from "./016-oauth-grants.js";
import { leaksAndInvitations } from "./017-leaks-and-invitations.js";
import { webhooks } from "./018-webhooks.js";
import { decisionHours } from "./020-decision-hours.js";
import { secretHashing } from "./021-secret-hashing.js";
import { creditThresholds } from "./023-credit-thresholds.js";

/** Migrations ship in code, not as files on disk, so the built package needs nothing beside it. */
const migrations: Record<string, Migration> = {
  "001-initial": initial,
  "002-platform": platform,
  "003-resources": resources,
  "004-audit": audit,
  "005-idempotency": idempotency,
  "006-organization-names": organizationNames,
  "008-networks-and-metadata": networksAndMetadata,
  "007-key-expiry": keyExpiry,
  "009-leaks-and-imports": leaksAndImports,
  "010-console": consoleUsers,
  "011-mcp-oauth": mcpOauth,
  "012-two-factor": twoFactor,
  "014-console-secret-handoffs": consoleSecretHandoffs,
  "015-provisioning": provisioning,
  "016-oauth-grants": oauthGrants,
  "017-leaks-and-invitations": leaksAndInvitations,
  "018-webhooks": webhooks,
  "020-decision-hours": decisionHours,
  "021-secret-hashing": secretHashing,
  "023-credit-thresholds": creditThresholds,
};

/** Every migration by name, for Kysely's `Migrator` (an upgrade test migrates to one of them first). */
export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };
const provider = migrationProvider;

/**
 * Brings the schema up to date; safe to run on every start and from several nodes at once (on
 * PostgreSQL, Kysely's migrator holds an advisory lock while it migrates). `schema` pins Kysely's own
 * bookkeeping tables to the schema being migrated: without it Kysely looks for them in every schema of
 * the database, and a second latchkey schema in the same database would never be migrated.
 */
export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error } = await migrator.migrateToLatest();
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- whatever else Kysely rejects with, in words
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
