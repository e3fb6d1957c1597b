#!/usr/bin/env node
import { Command } from "commander";
import { registerAuditCommand } from "./audit-command.js";
import { registerKeyCommands } from "./key-commands.js";
import { registerOrgCommands } from "./org-commands.js";
import { registerResourceCommands } from "./resource-commands.js";
import { registerServerCommands } from "./server-commands.js";
import { registerServiceTokenCommands } from "./service-token-commands.js";

const program = new Command()
  .name("latchkey")
  .description("Self-hostable API-key management with exact per-organization rate limits.")
  .showHelpAfterError();

registerServerCommands(program);
registerOrgCommands(program);
registerKeyCommands(program);
registerResourceCommands(program);
registerServiceTokenCommands(program);
registerAuditCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`latchkey: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
