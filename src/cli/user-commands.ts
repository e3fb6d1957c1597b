import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { loadConfig } from "../config.js";
import { systemClock } from "../domain/clock.js";
import { CONSOLE_ROLES, isConsoleRole } from "../domain/console-roles.js";
import { LatchkeyError } from "../domain/errors.js";
import { createConsoleUserService, type ConsoleUserService } from "../services/console-users.js";
import type { ConsoleStore } from "../store/console-store.js";
import { UsageError } from "./exit-codes.js";
import { readNewPassword } from "./read-password.js";
import { formatTable, printable } from "./text-table.js";
import { withStores } from "./with-stores.js";

function parseRole(value: string): string {
  if (!isConsoleRole(value)) throw new InvalidArgumentError(`must be one of ${CONSOLE_ROLES.join(", ")}.`);
  return value;
}

/** Input the service refused (a bad email, a short password, the last owner) is a usage mistake: exit 2. */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof LatchkeyError && error.code === "invalid_request")
      throw new UsageError(error.message);
    throw error;
  }
}

function withUsers<T>(work: (users: ConsoleUserService, store: ConsoleStore) => Promise<T>): Promise<T> {
  return withStores((stores) =>
    asUsage(() =>
      work(
        createConsoleUserService({
          store: stores.console,
          keys: stores.keys,
          clock: systemClock,
          passwordCost: loadConfig().passwordCost,
        }),
        stores.console,
      ),
    ),
  );
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `latchkey user create|list|password|two-factor-off|remove`: the people who sign in to the console
 * (docs/console.md).
 */
export function registerUserCommands(program: Command): void {
  const user = program
    .command("user")
    .description("Manage console users and their roles (operator commands, run beside the database).");

  user
    .command("create")
    .description(
      "Create a console user with a role in an organization; the password is asked at the terminal or " +
        "read from standard input (never an argument). An existing user gets the role without a new password.",
    )
    .requiredOption("--email <email>", "the address the user signs in with")
    .requiredOption("--org <id>", "the organization (org_...)")
    .requiredOption("--role <role>", `one of ${CONSOLE_ROLES.join(", ")}`, parseRole)
    .option("--json", 'print {"id", "email", "org_id", "role", "created"}')
    .action(async (options: { email: string; org: string; role: string; json?: boolean }) => {
      const { user: created, isNew } = await withUsers(async (users, store) => {
        const existing = await store.findUserByEmail(options.email.trim());
        const password = existing ? undefined : await readNewPassword();
        const added = await users.add({
          email: options.email,
          orgId: options.org,
          role: options.role,
          ...(password === undefined ? {} : { password }),
        });
        return { user: added.user, isNew: added.created };
      });
      if (options.json) {
        const body = {
          id: created.id,
          email: created.email,
          org_id: options.org,
          role: options.role,
          created: isNew,
        };
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        isNew
          ? `Created console user ${created.id} (${printable(created.email)}), ${options.role} of ${options.org}.\n`
          : `${printable(created.email)} (${created.id}) is now ${options.role} of ${options.org}.\n`,
      );
    });

  user
    .command("list")
    .description("List console users with their organizations and roles (never a password).")
    .option("--org <id>", "only the members of this organization")
    .option("--json", "print a JSON array")
    .action(async (options: { org?: string; json?: boolean }) => {
      const { memberships, unattached } = await withUsers(async (users) => ({
        memberships: await users.list(options.org),
        unattached: options.org === undefined ? await users.unattached() : [],
      }));
      const rows = [
        ...memberships.map((m) => ({
          id: m.userId,
          email: m.email,
          org_id: m.orgId,
          org_name: m.orgName,
          role: m.role,
          two_factor: m.twoFactor,
          created_at: iso(m.createdAt),
        })),
        ...unattached.map((u) => ({
          id: u.id,
          email: u.email,
          org_id: null,
          org_name: null,
          role: null,
          two_factor: u.totpSecret !== null,
          created_at: iso(u.createdAt),
        })),
      ];
      if (options.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write("No console users.\n");
        return;
      }
      process.stdout.write(
        formatTable(
          ["ID", "EMAIL", "ORGANIZATION", "ROLE", "TWO-FACTOR"],
          rows
            .map((row) => [
              row.id,
              row.email,
              row.org_id ? `${row.org_id} (${row.org_name})` : "-",
              row.role ?? "-",
              row.two_factor ? "on" : "off",
            ])
            .map((cells) => cells.map(printable)),
          rows.length === 1 ? "1 membership" : `${rows.length} memberships`,
        ),
      );
    });

  user
    .command("password")
    .description(
      "Set a console user's password (a forgotten one) and sign out every session of theirs; the password " +
        "is asked at the terminal or read from standard input (never an argument).",
    )
    .requiredOption("--email <email>", "the user's email")
    .action(async (options: { email: string }) => {
      await withUsers(async (users, store) => {
        // Asked only for a user that exists: nobody types a password twice to learn of a typo.
        if (!(await store.findUserByEmail(options.email.trim())))
          throw new LatchkeyError("not_found", `No console user with email "${options.email.trim()}".`);
        const password = await readNewPassword(`New password for ${printable(options.email)}: `);
        await users.resetPassword({ email: options.email, password });
      });
      process.stdout.write(
        `Set a new password for ${printable(options.email)} and signed out their sessions.\n`,
      );
    });

  user
    .command("two-factor-off")
    .description(
      "Turn a console user's two-factor sign-in off (a lost phone): they sign in with their password alone.",
    )
    .requiredOption("--email <email>", "the user's email")
    .action(async (options: { email: string }) => {
      await withUsers((users) => users.resetTwoFactor({ email: options.email }));
      process.stdout.write(`Two-factor sign-in is off for ${printable(options.email)}.\n`);
    });

  user
    .command("remove")
    .description(
      "Remove a console user (signing out every session), or with --org only their membership of one organization.",
    )
    .requiredOption("--email <email>", "the user's email")
    .option("--org <id>", "remove only the membership of this organization")
    .action(async (options: { email: string; org?: string }) => {
      await withUsers((users) =>
        users.remove({ email: options.email, ...(options.org ? { orgId: options.org } : {}) }),
      );
      process.stdout.write(
        options.org
          ? `Removed ${printable(options.email)} from ${options.org}.\n`
          : `Removed console user ${printable(options.email)} and signed out their sessions.\n`,
      );
    });
}
