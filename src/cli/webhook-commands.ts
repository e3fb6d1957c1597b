import { type Command, InvalidArgumentError } from "commander";
import type { WebhookAttempt, WebhookEndpoint, WebhooksResource } from "@latchkey/client";
import { adminClient } from "./admin-connection.js";
import { UsageError } from "./exit-codes.js";
import { action, type ConnectionFlags, connect, withConnectionOptions } from "./keys-connection.js";
import { printJson } from "./keys-output.js";
import { idOf, parsePageSize } from "./parse.js";
import { formatTable, printable, truncate } from "./text-table.js";

type Flags = ConnectionFlags & { platform?: boolean; json?: boolean };

const HELP = `
Credentials come from LATCHKEY_URL, LATCHKEY_API_ID and LATCHKEY_API_KEY (a key with webhooks:read and
webhooks:create_update), or --url, --api-id, --api-key. With --platform, the platform's own endpoints
(every organization's events) through LATCHKEY_SERVICE_TOKEN, a service token with the provision scope.
Each delivery is signed by the Standard Webhooks rules: see docs/webhooks.md to verify it.`;

/** The organization's webhooks, or with `--platform` the platform's. */
function webhooksOf(flags: Flags): WebhooksResource {
  if (!flags.platform) return connect(flags).webhooks;
  const url = flags.url ?? process.env.LATCHKEY_URL;
  if (!url) throw new UsageError("Missing LATCHKEY_URL (or --url).");
  return adminClient(url).admin.webhooks;
}

function withOptions(command: Command): Command {
  return withConnectionOptions(command)
    .option("--platform", "the platform's endpoints, with LATCHKEY_SERVICE_TOKEN (provision scope)")
    .option("--json", "print JSON");
}

function events(value: string): string[] {
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidArgumentError("It needs at least one event type.");
  return names;
}

function formatEndpoint(endpoint: WebhookEndpoint & { secret?: string }): string {
  const lines = [
    `id           ${endpoint.id}`,
    `url          ${printable(endpoint.url)}`,
    `events       ${endpoint.events.join(", ")}`,
    `description  ${endpoint.description === null ? "-" : printable(endpoint.description)}`,
    `enabled      ${endpoint.enabled}`,
    `created_at   ${endpoint.created_at}`,
  ];
  if (endpoint.secret) lines.push(`secret       ${endpoint.secret}   (shown once: store it now)`);
  return `${lines.join("\n")}\n`;
}

function formatAttempts(attempts: WebhookAttempt[]): string {
  const rows = attempts.map((a) => [
    a.at,
    a.message_id,
    a.status,
    a.response_status === null ? "-" : String(a.response_status),
    `${a.duration_ms} ms`,
    truncate(printable(a.response_excerpt ?? ""), 40),
  ]);
  return formatTable(
    ["AT", "MESSAGE", "STATUS", "HTTP", "TIME", "ANSWER"],
    rows,
    `${attempts.length} attempts`,
  );
}

/** `latchkey webhooks ...`: endpoints, their attempts, tests and resends, through a running server. */
export function registerWebhookCommands(program: Command): void {
  const group = program
    .command("webhooks")
    .description("Manage webhook endpoints through a running server (REST, like any client).")
    .addHelpText("after", HELP);
  const endpointId = idOf("whe_", "webhook endpoint");
  const print = (flags: Flags, record: WebhookEndpoint) => {
    if (flags.json) printJson(record);
    else process.stdout.write(formatEndpoint(record));
  };

  withOptions(group.command("list"))
    .description("List the endpoints, newest first.")
    .action(
      action(async (flags: Flags) => {
        const found: WebhookEndpoint[] = [];
        for await (const endpoint of webhooksOf(flags).listAll()) found.push(endpoint);
        if (flags.json) return printJson(found);
        const rows = found.map((e) => [
          e.id,
          e.enabled ? "yes" : "no",
          truncate(printable(e.url), 50),
          e.events.join(","),
        ]);
        process.stdout.write(
          formatTable(["ID", "ENABLED", "URL", "EVENTS"], rows, `${found.length} endpoints`),
        );
      }),
    );

  withOptions(group.command("create"))
    .description("Subscribe an endpoint; prints its signing secret once.")
    .requiredOption("--endpoint-url <url>", "where events are POSTed (https)")
    .requiredOption("--events <types>", "event types, separated by commas", events)
    .option("--description <text>", "what the endpoint is for")
    .action(
      action(async (flags: Flags & { endpointUrl: string; events: string[]; description?: string }) => {
        const made = await webhooksOf(flags).create({
          url: flags.endpointUrl,
          events: flags.events,
          ...(flags.description === undefined ? {} : { description: flags.description }),
        });
        print(flags, made);
      }),
    );

  withOptions(group.command("get").argument("<id>", "the endpoint's id (whe_...)", endpointId))
    .description("Show one endpoint.")
    .action(action(async (id: string, flags: Flags) => print(flags, await webhooksOf(flags).get(id))));

  withOptions(group.command("update").argument("<id>", "the endpoint's id (whe_...)", endpointId))
    .description("Change an endpoint; members not given are kept.")
    .option("--endpoint-url <url>", "a new URL")
    .option("--events <types>", "the new event types, separated by commas", events)
    .option("--description <text>", "a new description")
    .option("--disable", "stop deliveries")
    .option("--enable", "resume deliveries")
    .action(
      action(
        async (
          id: string,
          flags: Flags & {
            endpointUrl?: string;
            events?: string[];
            description?: string;
            disable?: boolean;
            enable?: boolean;
          },
        ) => {
          if (flags.disable && flags.enable)
            throw new UsageError("--disable and --enable exclude each other.");
          const changed = await webhooksOf(flags).update(id, {
            ...(flags.endpointUrl === undefined ? {} : { url: flags.endpointUrl }),
            ...(flags.events === undefined ? {} : { events: flags.events }),
            ...(flags.description === undefined ? {} : { description: flags.description }),
            ...(flags.disable ? { disabled: true } : flags.enable ? { disabled: false } : {}),
          });
          print(flags, changed);
        },
      ),
    );

  withOptions(group.command("delete").argument("<id>", "the endpoint's id (whe_...)", endpointId))
    .description("Delete an endpoint and what it still had to send.")
    .action(action(async (id: string, flags: Flags) => webhooksOf(flags).delete(id)));

  withOptions(group.command("rotate-secret").argument("<id>", "the endpoint's id (whe_...)", endpointId))
    .description("A new signing secret (printed once); the old one keeps signing for 24 hours.")
    .action(
      action(async (id: string, flags: Flags) => {
        const rotated = await webhooksOf(flags).rotateSecret(id);
        if (flags.json) return printJson(rotated);
        process.stdout.write(
          `secret  ${rotated.secret}   (shown once: store it now)\n` +
            `the previous secret signs too until ${rotated.previous_secret_expires_at}\n`,
        );
      }),
    );

  withOptions(group.command("test").argument("<id>", "the endpoint's id (whe_...)", endpointId))
    .description("Send a webhook.test event to the endpoint.")
    .action(
      action(async (id: string, flags: Flags) => {
        const message = await webhooksOf(flags).test(id);
        if (flags.json) return printJson(message);
        process.stdout.write(`queued ${message.id} (${message.type})\n`);
      }),
    );

  withOptions(group.command("attempts").argument("<id>", "the endpoint's id (whe_...)", endpointId))
    .description("The endpoint's latest delivery attempts (kept 30 days), newest first.")
    .option("--count <n>", "how many, 1 to 100 (default 20)", parsePageSize)
    .action(
      action(async (id: string, flags: Flags & { count?: number }) => {
        const page = await webhooksOf(flags).attempts(id, { count: flags.count ?? 20 });
        if (flags.json) return printJson(page.data);
        process.stdout.write(formatAttempts(page.data));
      }),
    );

  withOptions(
    group.command("resend").argument("<message>", "the message's id (msg_...)", idOf("msg_", "message")),
  )
    .description("Send a message again, with the same webhook-id, to the endpoints that had it.")
    .option("--endpoint <id>", "only to this endpoint", endpointId)
    .action(
      action(async (messageId: string, flags: Flags & { endpoint?: string }) => {
        const queued = await webhooksOf(flags).resend(messageId, flags.endpoint);
        if (flags.json) return printJson({ queued });
        process.stdout.write(`queued again for ${queued} endpoint${queued === 1 ? "" : "s"}\n`);
      }),
    );
}
