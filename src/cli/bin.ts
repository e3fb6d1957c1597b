#!/usr/bin/env node
import { Command } from "commander";
import { packageVersion } from "../version.js";
import { EXIT, EXIT_STATUS_HELP, exitCodeOf } from "./exit-codes.js";

// Set before the commands are added, so that every one inherits them: a usage mistake is one line,
// `latchkey: <what is wrong>` (no help dump), and exits 2 whichever command it was; help exits 0.
const program = new Command()
  .name("latchkey")
  .description("Self-hostable API-key management with exact per-organization rate limits.")
  .version(packageVersion(), "-V, --version", "print latchkey's version (from its package.json)")
  .option("--create", "operator commands: create the SQLite database if it does not exist yet")
  .showHelpAfterError(false)
  .configureOutput({ outputError: (text, write) => write(`latchkey: ${text.replace(/^error: /, "")}`) })
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT.usage))
  // The operator commands read configuration from the environment; --create is one more setting.
  .hook("preAction", (command) => {
    if (command.opts<{ create?: boolean }>().create) process.env.LATCHKEY_DATABASE_CREATE = "on";
  });

type Registrar = () => Promise<(program: Command) => void>;

const server: Registrar = async () => (await import("./server-commands.js")).registerServerCommands;
const resources: Registrar = async () => (await import("./resource-commands.js")).registerResourceCommands;

/**
 * The module that registers each top-level command. Only the one named on the command line is
 * loaded: a client command (keys, proxies...) then never loads the server, its schemas and its
 * database drivers, which would be most of its start. In the bundle each is a chunk of its own, read
 * only when imported (rolldown.config.mjs).
 */
const REGISTRARS: Record<string, Registrar> = {
  serve: server,
  migrate: server,
  org: async () => (await import("./org-commands.js")).registerOrgCommands,
  keys: async () => (await import("./key-commands.js")).registerKeyCommands,
  proxies: resources,
  "storage-destinations": resources,
  "og-configs": resources,
  "service-token": async () => (await import("./service-token-commands.js")).registerServiceTokenCommands,
  audit: async () => (await import("./audit-command.js")).registerAuditCommand,
  user: async () => (await import("./user-commands.js")).registerUserCommands,
  usage: async () => (await import("./usage-export-command.js")).registerUsageCommands,
  webhooks: async () => (await import("./webhook-commands.js")).registerWebhookCommands,
  groups: async () => (await import("./groups-command.js")).registerGroupCommands,
};

// Anything else (no command, --help, a mistyped command) needs every command, for the list or the error.
const asked = REGISTRARS[process.argv[2] ?? ""];
const registrars = asked ? [asked] : [...new Set(Object.values(REGISTRARS))];
for (const register of await Promise.all(registrars.map((load) => load()))) register(program);

/** Every command's help ends with the one table of exit statuses. */
function addExitStatusHelp(command: Command): void {
  command.addHelpText("after", EXIT_STATUS_HELP);
  for (const sub of command.commands) addExitStatusHelp(sub);
}
addExitStatusHelp(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`latchkey: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(exitCodeOf(error));
});
