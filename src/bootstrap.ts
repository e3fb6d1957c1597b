import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Services } from "./app.js";
import type { Config } from "./config.js";
import { BOOTSTRAP_ACTOR } from "./domain/audit.js";
import { randomBase62 } from "./domain/credentials.js";
import { createOrganizationWithOwner, type OrganizationWithOwner } from "./services/organizations.js";
import type { ServiceTokenService } from "./services/service-tokens.js";
import { sqliteFolder } from "./store/database-location.js";

/** The file name of the first credentials, beside a SQLite database. */
export const BOOTSTRAP_FILE_NAME = "first-start-credentials.env";

type FirstCredentials = OrganizationWithOwner & {
  service: Awaited<ReturnType<ServiceTokenService["create"]>>;
  /** The console's first owner, when LATCHKEY_OWNER_EMAIL is set. */
  ownerUser?: { email: string; password: string };
};

/**
 * Where the first credentials go in `file` mode: LATCHKEY_BOOTSTRAP_FILE, or beside the SQLite
 * database. PostgreSQL has no folder of latchkey's own, so there the variable is required.
 */
export function bootstrapFilePath(config: Pick<Config, "bootstrapFile" | "databaseUrl">): string {
  if (config.bootstrapFile) return resolve(config.bootstrapFile);
  const folder = sqliteFolder(config.databaseUrl);
  if (folder) return join(folder, BOOTSTRAP_FILE_NAME);
  throw new Error(
    "LATCHKEY_BOOTSTRAP_FILE is required on the first start over an empty PostgreSQL database: name a " +
      "file (created 0600) for the first owner key and service token, or set LATCHKEY_BOOTSTRAP=print or off.",
  );
}

/** The credentials as a shell-sourceable file, so `. first-start-credentials.env` puts them in a shell. */
function credentialsFile({ organization, owner, secret, service, ownerUser }: FirstCredentials): string {
  return [
    `# latchkey: first-start credentials, written ${new Date().toISOString()}.`,
    "# Copy them into your secret manager, then delete this file; they are not shown again.",
    `LATCHKEY_ORGANIZATION_ID=${organization.id}`,
    `LATCHKEY_API_ID=${owner.apiId}`,
    `LATCHKEY_API_KEY=${secret}`,
    `# ${service.record.id}; send as X-Latchkey-Service-Token`,
    `LATCHKEY_SERVICE_TOKEN=${service.token}`,
    ...(ownerUser
      ? [
          "# The console's first owner (sign in at /console; the password is not kept anywhere else)",
          `LATCHKEY_OWNER_EMAIL=${ownerUser.email}`,
          `LATCHKEY_OWNER_PASSWORD=${ownerUser.password}`,
        ]
      : []),
    "",
  ].join("\n");
}

function printedCredentials({ organization, owner, secret, service, ownerUser }: FirstCredentials): string {
  return [
    "",
    "latchkey: first start, created organization 'default', its owner key and a service token.",
    "Store these credentials now: the secrets are shown only this once.",
    `  organization:  ${organization.id}`,
    `  api_id:        ${owner.apiId}`,
    `  api_key:       ${secret}`,
    `  service token: ${service.token}   (${service.record.id}; send as X-Latchkey-Service-Token)`,
    ...(ownerUser ? [`  console owner: ${ownerUser.email}  password: ${ownerUser.password}`] : []),
    "",
    "",
  ].join("\n");
}

/** The console's first owner, with a generated password (about 143 bits) shown only in the credentials. */
async function firstOwnerUser(
  services: Services,
  email: string,
  orgId: string,
): Promise<{ email: string; password: string }> {
  const password = randomBase62(24);
  await services.consoleUsers.add({ email, password, orgId, role: "owner" }, BOOTSTRAP_ACTOR);
  return { email, password };
}

/**
 * Creates the credentials file, 0600, new: `O_EXCL` refuses a path that exists, a symlink included
 * (which someone else may have planted to have the secrets written where they can read them), and
 * `O_NOFOLLOW` is a second guard. Nothing is created in the database when this fails.
 */
function openPrivateFile(path: string): number {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
  try {
    return openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    throw new Error(
      `The first-start credentials file ${path} already exists (a file or a symlink): latchkey only ` +
        "creates it new. Move it away (or set LATCHKEY_BOOTSTRAP_FILE to another path) and start again.",
    );
  }
}

/**
 * On the first start over an empty database, creates organization `default`, its owner key and a
 * service token for the platform's services, as Elasticsearch creates its first password. Their
 * secrets go to a file only the server's user can read, and only the file's path is printed: standard
 * error ends up in Docker's and journald's logs, which keep it forever. `print` keeps the old way.
 */
export async function bootstrapFirstOrganization(
  services: Services,
  config: Pick<Config, "bootstrap" | "bootstrapFile" | "databaseUrl"> & Partial<Pick<Config, "ownerEmail">>,
  print: (text: string) => void = (text) => process.stderr.write(text),
): Promise<boolean> {
  if (config.bootstrap === "off") return false;
  // Under the startup lock, so that of several nodes starting together over one empty database only
  // the first creates `default`; the others then find it and do nothing.
  const created = await services.store.withStartupLock(async () => {
    if (await services.store.hasOrganizations()) return undefined;
    // The file is opened before anything is created: if it cannot be written, nothing is lost.
    const file = config.bootstrap === "file" ? bootstrapFilePath(config) : undefined;
    const fd = file === undefined ? undefined : openPrivateFile(file);
    try {
      const first = await createOrganizationWithOwner(services, "default", BOOTSTRAP_ACTOR);
      const service = await services.serviceTokens.create("Platform services (first start)", BOOTSTRAP_ACTOR);
      const ownerUser =
        config.ownerEmail === undefined
          ? undefined
          : await firstOwnerUser(services, config.ownerEmail, first.organization.id);
      const credentials = { ...first, service, ...(ownerUser ? { ownerUser } : {}) };
      if (fd !== undefined) writeSync(fd, credentialsFile(credentials));
      return { credentials, file };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  });
  if (!created) return false;
  const { credentials, file } = created;
  print(
    file === undefined
      ? printedCredentials(credentials)
      : `latchkey: first start, created organization 'default' (${credentials.organization.id}), its owner ` +
          `key${credentials.ownerUser ? ", the console owner " + credentials.ownerUser.email : ""} and a service token. Their secrets are in ${file} (readable by this user only): ` +
          "store them, then delete the file.\n",
  );
  return true;
}
