import { type Command, Option } from "commander";
import type { LatchkeyClient, ResourceFamilyClient, ResourceRecord } from "@latchkey/client";
import {
  RESOURCE_FAMILIES,
  type ResourceFamily,
  type ResourceFamilyName,
} from "../domain/resource-families.js";
import { action, type ConnectionFlags, connect, withConnectionOptions } from "./keys-connection.js";
import { printJson } from "./keys-output.js";
import { idOf, parsePageSize } from "./parse.js";
import { checkUpdateFlags, createContent, type ResourceFlags, updatedContent } from "./resource-flags.js";
import { formatResource, formatResourceTable } from "./resource-output.js";

type JsonFlag = { json?: boolean };

const CLIENT_OF: Record<ResourceFamilyName, (client: LatchkeyClient) => ResourceFamilyClient> = {
  proxies: (client) => client.proxies,
  storage_destinations: (client) => client.storageDestinations,
  og_configs: (client) => client.ogConfigs,
};

const CREDENTIALS_HELP = `
Credentials come from LATCHKEY_URL, LATCHKEY_API_ID and LATCHKEY_API_KEY, or --url, --api-id, --api-key.
Rate-limited requests are retried after Retry-After (up to 3 times); each wait is announced on stderr.
A plan without this family answers 403 plan_restricted (exit status 3).`;

function printRecord(record: ResourceRecord, flags: JsonFlag): void {
  if (flags.json) printJson(record);
  else process.stdout.write(formatResource(record));
}

function withContentOptions(command: Command): Command {
  return command
    .option("--settings <json>", 'the settings object as JSON, e.g. \'{"region": "eu-west-1"}\'')
    .option("--settings-file <file>", "read the settings object from a file (- for standard input)")
    .addOption(new Option("--disabled", "disable the record").conflicts("enabled"))
    .addOption(new Option("--enabled", "enable the record"));
}

/** `latchkey <family> list|get|create|update|delete` for one family, through the typed client. */
function registerFamily(program: Command, family: ResourceFamily): Command {
  const { singular, plural, idPrefix } = family;
  const group = program
    .command(family.command)
    .description(`Manage ${plural} through a running server (REST, like any client).`)
    .addHelpText("after", CREDENTIALS_HELP);
  const recordId = idOf(idPrefix, singular);
  const resourceOf = (flags: ConnectionFlags) => CLIENT_OF[family.name](connect(flags));

  withConnectionOptions(group.command("list"))
    .description(`List ${plural}, newest first, following every page (disabled ones included).`)
    .option("--page-size <n>", "records per request, 1 to 100 (default 100)", parsePageSize)
    .option("--json", "print a JSON array of every record")
    .action(
      action(async (flags: ConnectionFlags & JsonFlag & { pageSize?: number }) => {
        const found: ResourceRecord[] = [];
        for await (const page of resourceOf(flags).listAll({ count: flags.pageSize ?? 100 }))
          found.push(...page.data);
        if (flags.json) printJson(found);
        else process.stdout.write(formatResourceTable(found, plural));
      }),
    );

  withConnectionOptions(
    group.command("get").argument("<id>", `the ${singular}'s id (${idPrefix}...)`, recordId),
  )
    .description(`Show one ${singular}.`)
    .option("--json", "print the record as JSON")
    .action(
      action(async (id: string, flags: ConnectionFlags & JsonFlag) =>
        printRecord(await resourceOf(flags).get(id), flags),
      ),
    );

  withContentOptions(withConnectionOptions(group.command("create")))
    .description(`Create a ${singular}.`)
    .option("--name <name>", "display name, 1 to 255 characters (required)")
    .option("--json", "print the record as JSON")
    .action(
      action(async (flags: ConnectionFlags & JsonFlag & ResourceFlags) => {
        const content = createContent(flags);
        printRecord(await resourceOf(flags).create(content), flags);
      }),
    );

  withContentOptions(
    withConnectionOptions(
      group.command("update").argument("<id>", `the ${singular}'s id (${idPrefix}...)`, recordId),
    ),
  )
    .description(`Change a ${singular}; what no flag mentions keeps its current value.`)
    .option("--name <name>", "new display name")
    .option("--json", "print the updated record as JSON")
    .addHelpText(
      "after",
      "\nThe server replaces a record's whole content on update. This command reads the record first and\n" +
        "applies only the flags given; --settings replaces the whole settings object.",
    )
    .action(
      action(async (id: string, flags: ConnectionFlags & JsonFlag & ResourceFlags) => {
        checkUpdateFlags(flags);
        const resource = resourceOf(flags);
        const current = await resource.get(id);
        printRecord(await resource.update(id, updatedContent(current, flags)), flags);
      }),
    );

  withConnectionOptions(
    group.command("delete").argument("<id>", `the ${singular}'s id (${idPrefix}...)`, recordId),
  )
    .description(`Delete a ${singular} (repeating it succeeds).`)
    .option("--json", 'print {"id", "deleted": true} as JSON')
    .action(
      action(async (id: string, flags: ConnectionFlags & JsonFlag) => {
        await resourceOf(flags).delete(id);
        if (flags.json) printJson({ id, deleted: true });
        else process.stdout.write(`Deleted ${id}.\n`);
      }),
    );
  return group;
}

/** `latchkey proxies|storage-destinations|og-configs ...`, plus `storage-destinations aws-external-id`. */
export function registerResourceCommands(program: Command): void {
  for (const family of RESOURCE_FAMILIES) {
    const group = registerFamily(program, family);
    if (family.name !== "storage_destinations") continue;
    withConnectionOptions(group.command("aws-external-id"))
      .description("Print the organization's AWS external id (for the IAM role's trust policy).")
      .option("--json", 'print {"external_id"} as JSON')
      .action(
        action(async (flags: ConnectionFlags & JsonFlag) => {
          const externalId = await connect(flags).storageDestinations.awsExternalId();
          if (flags.json) printJson({ external_id: externalId });
          else process.stdout.write(`${externalId}\n`);
        }),
      );
  }
}
