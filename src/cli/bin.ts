#!/usr/bin/env node
import { Command } from "commander";
import { packageVersion } from "../version.js";
import { registerAuditCommand } from "./audit-command.js";
import { EXIT, EXIT_STATUS_HELP, exitCodeOf } from "./exit-codes.js";
import { registerKeyCommands } from "./key-commands.js";
import { registerOrgCommands } from "./org-commands.js";
import { registerResourceCommands } from "./resource-commands.js";
import { registerServerCommands } from "./server-commands.js";
import { registerServiceTokenCommands } from "./service-token-commands.js";
import { registerUserCommands } from "./user-commands.js";

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

registerServerCommands(program);
registerOrgCommands(program);
registerKeyCommands(program);
registerResourceCommands(program);
registerServiceTokenCommands(program);
registerAuditCommand(program);
registerUserCommands(program);

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
