import { type Command, Option } from "commander";
import type { KeyRecord } from "@latchkey/client";
import { action, type ConnectionFlags, connect, withConnectionOptions } from "./keys-connection.js";
import {
  type CreateFlags,
  createConfiguration,
  metadataFlags,
  type UpdateFlags,
  updatedConfiguration,
} from "./keys-flags.js";
import { formatKey, formatKeyTable, printJson } from "./keys-output.js";
import { registerImportCommand } from "./keys-import.js";
import { parseOverlap, rollCommand } from "./keys-roll.js";
import { rotateCommand } from "./keys-rotate.js";
import { registerScanCommand } from "./keys-scan.js";
import { idOf, parsePageSize } from "./parse.js";

type JsonFlag = { json?: boolean };

const KEY_ID = idOf("key_", "key");

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function printKey(key: KeyRecord, flags: JsonFlag): void {
  if (flags.json) printJson(key);
  else process.stdout.write(formatKey(key));
}

const CREDENTIALS_HELP = `
Credentials come from LATCHKEY_URL, LATCHKEY_API_ID and LATCHKEY_API_KEY, or --url, --api-id, --api-key.
Rate-limited requests are retried after Retry-After (up to 3 times); each wait is announced on stderr.`;

const UPDATE_HELP = `
An update replaces a key's whole configuration on the server. This command reads the key first and
applies only the flags given, so everything not mentioned keeps its value. --name "" restores the default
name; --description "" clears the description.`;

/** `latchkey keys ...`: key management over the REST interface, through the typed client. */
export function registerKeyCommands(program: Command): void {
  const keys = program
    .command("keys")
    .description("Manage API keys through a running server (uses the REST interface, like any client).")
    .addHelpText("after", CREDENTIALS_HELP);

  withConnectionOptions(keys.command("list"))
    .description("List keys, newest first, following every page.")
    .option("--all", "include disabled keys")
    .option(
      "--with-permission <name>",
      "only keys allowing this permission (repeatable: all of them)",
      collect,
    )
    .option(
      "--metadata <name=value>",
      "only keys with this metadata member (repeatable: all of them)",
      collect,
    )
    .option("--name-prefix <text>", "only keys whose name starts with this text (case-sensitive)")
    .option("--page-size <n>", "keys per request, 1 to 100 (default 100)", parsePageSize)
    .option("--json", "print a JSON array of every record")
    .action(
      action(
        async (
          flags: ConnectionFlags &
            JsonFlag & {
              all?: boolean;
              withPermission?: string[];
              metadata?: string[];
              namePrefix?: string;
              pageSize?: number;
            },
        ) => {
          const client = connect(flags);
          const found: KeyRecord[] = [];
          const pages = client.keys.listAll({
            includeDisabled: flags.all ?? false,
            withPermission: flags.withPermission ?? [],
            count: flags.pageSize ?? 100,
            ...(flags.metadata ? { metadata: metadataFlags(flags.metadata) } : {}),
            ...(flags.namePrefix !== undefined ? { namePrefix: flags.namePrefix } : {}),
          });
          for await (const page of pages) found.push(...page.data);
          if (flags.json) printJson(found);
          else process.stdout.write(formatKeyTable(found));
        },
      ),
    );

  withConnectionOptions(keys.command("get").argument("<id>", "the key's resource id (key_...)", KEY_ID))
    .description("Show one key (never its secret).")
    .option("--json", "print the record as JSON")
    .action(
      action(async (id: string, flags: ConnectionFlags & JsonFlag) =>
        printKey(await connect(flags).keys.get(id), flags),
      ),
    );

  withConnectionOptions(keys.command("create"))
    .description("Create a key and print its secret, once.")
    .option("--permission <name>", "a permission to grant (repeatable)", collect, [])
    .option("--all-future", "grant every current and future permission")
    .option("--name <name>", "display name (default: Key created <UTC time>)")
    .option("--description <text>", "what the key is for")
    .option("--disabled", "create it disabled")
    .option("--allowed-cidr <cidr>", "a network the key may be used from (repeatable; default any)", collect)
    .option("--metadata <name=value>", "a metadata member (repeatable)", collect)
    .option("--expires-at <time>", "when the key stops working, RFC 3339 (e.g. 2027-01-31T00:00:00Z)")
    .option(
      "--rate-limit <group=q/s,...>",
      "the key's own windows in a group counted per key, e.g. thumbnails=5/60,500/3600 (repeatable)",
      collect,
    )
    .option("--json", "print the record, secret included, as JSON")
    .action(
      action(async (flags: ConnectionFlags & JsonFlag & CreateFlags) => {
        const config = createConfiguration(flags);
        const created = await connect(flags).keys.create(config);
        if (flags.json) return printJson(created);
        process.stdout.write(formatKey(created));
        process.stderr.write("Store the api_key now: it is not shown again.\n");
      }),
    );

  withConnectionOptions(keys.command("update").argument("<id>", "the key's resource id (key_...)", KEY_ID))
    .description("Change a key; flags not given keep their current values.")
    .option("--name <name>", "new display name")
    .option("--description <text>", "new description")
    .option("--permission <name>", "replace the permission list (repeatable)", collect)
    .option("--add-permission <name>", "add a permission (repeatable)", collect)
    .option("--remove-permission <name>", "remove a permission (repeatable)", collect)
    .option("--all-future", "grant every current and future permission")
    .option("--no-all-future", "stop granting future permissions (keeps today's list unless --permission)")
    .addOption(new Option("--disabled", "disable the key").conflicts("enabled"))
    .addOption(new Option("--enabled", "enable the key"))
    .option("--allowed-cidr <cidr>", "replace the networks the key may be used from (repeatable)", collect)
    .option("--any-address", "let the key be used from any address again")
    .option("--metadata <name=value>", "set a metadata member, keeping the others (repeatable)", collect)
    .option("--remove-metadata <name>", "remove a metadata member (repeatable)", collect)
    .option("--expires-at <time>", "bring the expiry forward (RFC 3339); it can never move later")
    .option(
      "--rate-limit <group=q/s,...>",
      "set the key's own windows in a group counted per key, keeping its other groups (repeatable)",
      collect,
    )
    .option("--remove-rate-limit <group>", "drop the key's own windows in a group (repeatable)", collect)
    .option("--json", "print the updated record as JSON")
    .addHelpText("after", UPDATE_HELP)
    .action(
      action(async (id: string, flags: ConnectionFlags & JsonFlag & UpdateFlags) => {
        const client = connect(flags);
        const current = await client.keys.get(id);
        printKey(await client.keys.update(id, updatedConfiguration(current, flags)), flags);
      }),
    );

  withConnectionOptions(keys.command("disable").argument("<id>", "the key's resource id (key_...)", KEY_ID))
    .description("Disable a key (it stays listed and counts toward the quota; repeating it succeeds).")
    .option("--json", 'print {"id", "enabled": false} as JSON')
    .action(
      action(async (id: string, flags: ConnectionFlags & JsonFlag) => {
        await connect(flags).keys.disable(id);
        if (flags.json) printJson({ id, enabled: false });
        else process.stdout.write(`Disabled ${id}.\n`);
      }),
    );

  withConnectionOptions(keys.command("enable").argument("<id>", "the key's resource id (key_...)", KEY_ID))
    .description("Enable a key again, keeping its name, description and permissions (same secret).")
    .option("--json", "print the record as JSON")
    .action(
      action(async (id: string, flags: ConnectionFlags & JsonFlag) =>
        printKey(await connect(flags).keys.enable(id), flags),
      ),
    );

  withConnectionOptions(keys.command("rotate").argument("<id>", "the key to replace (key_...)", KEY_ID))
    .description(
      "Replace a key: create one with the same configuration, store its credentials, verify them, then " +
        "disable the old key. On any failure the old key stays enabled.",
    )
    .option("--out <file>", "write the new credentials to this new file (mode 0600) instead of stdout")
    .option(
      "--overlap <seconds>",
      "rotate by roll instead: same key, new secret, the old one working this long (0 to 604800)",
      parseOverlap,
    )
    .option(
      "--verify-command <cmd>",
      "shell command that switches your application and checks it (gets LATCHKEY_NEW_API_ID, " +
        "LATCHKEY_NEW_API_KEY, ...); the old key is disabled only if it exits 0",
    )
    .option("--json", "print the new record as JSON (without the secret when --out is given)")
    .action(action(rotateCommand));

  // Neither talks to a server: scan works on text alone, import is an operator command (the database).
  registerScanCommand(keys);
  registerImportCommand(keys);
  withConnectionOptions(keys.command("roll").argument("<id>", "the key to roll (key_...)", KEY_ID))
    .description(
      "Give a key a new secret (same id and api_id) and print it, once; the old secret keeps working " +
        "for --overlap seconds.",
    )
    .option(
      "--overlap <seconds>",
      "how long the old secret keeps working, 0 to 604800 (default 3600, an hour; 0 ends it at once)",
      parseOverlap,
    )
    .option("--out <file>", "write the new credentials to this new file (mode 0600) instead of stdout")
    .option("--json", "print the record as JSON (without the secret when --out is given)")
    .action(action(rollCommand));
}
