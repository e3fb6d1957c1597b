#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerAuditCommand } from "./audit-command.js";
import { registerKeyCommands } from "./key-commands.js";
import { registerOrgCommands } from "./org-commands.js";
import { registerResourceCommands } from "./resource-commands.js";
import { registerServerCommands } from "./server-commands.js";
import { registerServiceTokenCommands } from "./service-token-commands.js";

/** The version of the installed package: `dist/cli/bin.js` sits two folders below its package.json. */
function packageVersion(): string {
  const path = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}

const program = new Command()
  .name("latchkey")
  .description("Self-hostable API-key management with exact per-organization rate limits.")
  .version(packageVersion(), "-V, --version", "print latchkey's version (from its package.json)")
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
