import type { GroupDefinition } from "@latchkey/client";
import { type Command, InvalidArgumentError } from "commander";
import { formatWindows, parsePer, parseWindows, type WindowFlag } from "./rate-limit-windows.js";

const PUT_HELP = `
Declares a rate-limit group of the platform's own (or redefines one), for its routes: authorize,
forward-auth routes and the guard name it. Windows as keys --rate-limit and org limits --policy take
them, up to 5 of 1 s to 31 days each:
  latchkey groups put render --policy 10/1,1000/3600,20000/86400 --per key
Every node applies it within 2 seconds; organizations' overrides (org limits --policy) replace it for
them. A name of the LATCHKEY_GROUPS file is redefined for the whole deployment; a management group
(api-key:read...) cannot be. Beside the database, or with --url through a running server's provisioning
API (LATCHKEY_SERVICE_TOKEN, PUT /v1/admin/groups/{group}), with the same output. See docs/rate-limits.md.`;

function parsePolicy(value: string): WindowFlag[] {
  const windows = parseWindows(value);
  if (!windows) throw new InvalidArgumentError("takes <quota>/<seconds>[,<quota>/<seconds>...].");
  return windows;
}

interface PutFlags {
  policy: WindowFlag[];
  per?: "organization" | "key";
  url?: string;
  json?: boolean;
}

async function put(name: string, flags: PutFlags): Promise<void> {
  const limit = { policies: flags.policy, per: flags.per ?? "organization" };
  let group: GroupDefinition;
  if (flags.url) {
    const { adminClient } = await import("./admin-connection.js");
    group = await adminClient(flags.url).admin.putGroup(name, limit);
  } else {
    const [{ withLimitServices }, { OPERATOR_ACTOR }, { groupLimitFromJson }, { policiesToJson }] =
      await Promise.all([
        import("./with-limit-services.js"),
        import("../domain/audit.js"),
        import("../domain/group-definitions.js"),
        import("../domain/rate-limit-policies.js"),
      ]);
    const declared = await withLimitServices(({ groups }) =>
      groups.put(name, groupLimitFromJson(limit), OPERATOR_ACTOR),
    );
    group = { name: declared.name, policies: policiesToJson(declared.policies), per: declared.per };
  }
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(group, null, 2)}\n`);
    return;
  }
  process.stdout.write(`Group ${group.name}: ${formatWindows(group.policies)} per ${group.per}\n`);
}

/** `latchkey groups put`: the platform's own rate-limit groups (`PUT /v1/admin/groups/{group}`). */
export function registerGroupCommands(program: Command): void {
  const groups = program
    .command("groups")
    .description("Declare rate-limit groups of the platform's own (operator commands, or --url).");
  groups
    .command("put")
    .description("Declare or redefine a group and its windows; every node applies it within 2 seconds.")
    .argument("<group>", "the group's name, e.g. render or templates:read")
    .requiredOption("--policy <windows>", "its windows, e.g. 10/1,1000/3600", parsePolicy)
    .option("--per <per>", "organization (default: all keys together) or key (each key)", parsePer)
    .option("--url <url>", "through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .option("--json", 'print {"name", "policies", "per"}, as PUT /v1/admin/groups/{group} answers')
    .addHelpText("after", PUT_HELP)
    .action(put);
}
