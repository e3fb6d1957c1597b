import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Services } from "./app.js";
import { bootstrapFilePath } from "./bootstrap.js";
import type { Config } from "./config.js";
import { BOOTSTRAP_ACTOR } from "./domain/audit.js";
import { randomBase62 } from "./domain/credentials.js";
import type { WarningLog } from "./warning-log.js";

/** Beside the first start's credentials: the console owner made on a later start. */
export const LATER_OWNER_FILE_NAME = "console-owner-credentials.env";

type LaterOwnerConfig = Pick<Config, "bootstrap" | "bootstrapFile" | "databaseUrl" | "ownerEmail">;

/** The organization a later owner joins: `default`, or the only one there is. */
async function organizationForOwner(services: Services) {
  const organizations = await services.store.listOrganizations();
  const named = organizations.find((org) => org.name.toLowerCase() === "default");
  if (named) return named;
  return organizations.length === 1 ? organizations[0] : undefined;
}

/** Creates the password's file (0600, never over an existing file or through a symlink). */
function writeNewPrivateFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * LATCHKEY_OWNER_EMAIL on a start after the first one (docs/console.md): a person who started latchkey
 * once, then read about the console, expects the variable to make them its owner. It does while the
 * deployment has no console user yet, in organization `default` (or the only organization), with a
 * generated password written where the first credentials go; otherwise the log says why not, once.
 * `tell` receives what a person must read (where the password is).
 */
export async function addLaterOwner(
  services: Services,
  config: LaterOwnerConfig,
  log: WarningLog,
  tell: (text: string) => void,
): Promise<void> {
  const email = config.ownerEmail;
  if (email === undefined) return;
  const refuse = (why: string) =>
    log.warn(
      { setting: "LATCHKEY_OWNER_EMAIL" },
      `LATCHKEY_OWNER_EMAIL=${email}: no console user was created: ${why}`,
    );
  const manually = (orgId = "org_...") =>
    `add them with \`latchkey user create --email ${email} --org ${orgId} --role owner\`.`;
  if (config.bootstrap === "off") {
    refuse(`LATCHKEY_BOOTSTRAP is off; ${manually()}`);
    return;
  }
  // Several nodes may start together: one of them creates the owner, the others then find a user.
  await services.store.withStartupLock(async () => {
    const users = await services.consoleStore.listUsers();
    if (users.some((user) => user.email.toLowerCase() === email.toLowerCase())) return;
    if (users.length > 0) {
      refuse(
        `the deployment has console users already (the variable makes only the first one); ${manually()}`,
      );
      return;
    }
    const organization = await organizationForOwner(services);
    if (!organization) {
      refuse(`there are several organizations and none is named 'default'; ${manually()}`);
      return;
    }
    let file: string | undefined;
    if (config.bootstrap === "file") {
      try {
        file = join(dirname(bootstrapFilePath(config)), LATER_OWNER_FILE_NAME);
      } catch {
        refuse(
          `LATCHKEY_BOOTSTRAP_FILE names no place for the password on PostgreSQL; set it, or ${manually(organization.id)}`,
        );
        return;
      }
    }
    const password = randomBase62(24);
    const lines = [
      `# latchkey: the console owner of '${organization.name}', created ${new Date().toISOString()}.`,
      "# Sign in at /console, then delete this file; the password is not shown again.",
      `LATCHKEY_OWNER_EMAIL=${email}`,
      `LATCHKEY_OWNER_PASSWORD=${password}`,
      "",
    ].join("\n");
    if (file !== undefined) {
      try {
        writeNewPrivateFile(file, lines);
      } catch (error) {
        refuse(
          `cannot create ${file} for the password (${(error as Error).message}); remove it, or ${manually(organization.id)}`,
        );
        return;
      }
    }
    await services.consoleUsers.add(
      { email, password, orgId: organization.id, role: "owner" },
      BOOTSTRAP_ACTOR,
    );
    tell(
      file === undefined
        ? `\nlatchkey: created the console owner ${email} of '${organization.name}'. Store the password now, it is shown only this once:\n  console owner: ${email}  password: ${password}\n\n`
        : `latchkey: created the console owner ${email} of '${organization.name}' (LATCHKEY_OWNER_EMAIL). The password is in ${file} (readable by this user only): sign in at /console, then delete the file.\n`,
    );
  });
}
