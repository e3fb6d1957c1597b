import type { LatchkeyClient, ServiceToken } from "@latchkey/client";
import { type Command, InvalidArgumentError } from "commander";
import { loadConfig } from "../config.js";
import { systemClock } from "../domain/clock.js";
import { createSecretHasher } from "../domain/credentials.js";
import {
  DEFAULT_SERVICE_TOKEN_SCOPES,
  parseServiceTokenScopes,
  type ServiceTokenScope,
} from "../domain/service-token-scopes.js";
import { createServiceTokenService, type ServiceTokenService } from "../services/service-tokens.js";
import type { ServiceTokenRecord } from "../store/service-token-store.js";
import { agreedHasher } from "./agreed-hasher.js";
import { withStores } from "./with-stores.js";

/** A token's name says who holds it: blank would make `service-token list` useless for revoking. */
function parseName(value: string): string {
  const name = value.trim();
  if (name === "") throw new InvalidArgumentError("must not be blank; say which service holds the token.");
  if ([...name].length > 255) throw new InvalidArgumentError("must be at most 255 characters.");
  return name;
}

function parseScopes(value: string): ServiceTokenScope[] {
  try {
    return parseServiceTokenScopes(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * The service beside the database. Only a create hashes a secret, so only a create checks that this
 * environment hashes as the servers do (agreed-hasher.ts); listing and revoking need no pepper.
 */
function withTokens<T>(work: (tokens: ServiceTokenService) => Promise<T>, creates = false): Promise<T> {
  return withStores(async (stores) =>
    work(
      createServiceTokenService({
        store: stores.serviceTokens,
        hasher: creates ? await agreedHasher(stores) : createSecretHasher(loadConfig().secretPepper),
        clock: systemClock,
      }),
    ),
  );
}

/** Runs `work` with the provisioning API of the server at `url` (`--url`, LATCHKEY_SERVICE_TOKEN). */
async function remotely<T>(url: string, work: (admin: LatchkeyClient["admin"]) => Promise<T>): Promise<T> {
  const { adminClient } = await import("./admin-connection.js");
  return work(adminClient(url).admin);
}

/** A token as the provisioning API lists it, as the store holds it (no hash: none is needed here). */
function fromJson(token: ServiceToken): ServiceTokenRecord {
  return {
    id: token.id,
    name: token.name,
    tokenHash: "",
    createdAt: Date.parse(token.created_at),
    revokedAt: token.revoked_at === null ? null : Date.parse(token.revoked_at),
    scopes: token.scopes,
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toJson(record: ServiceTokenRecord) {
  return {
    id: record.id,
    name: record.name,
    scopes: [...record.scopes],
    created_at: iso(record.createdAt),
    revoked_at: iso(record.revokedAt),
  };
}

/** `latchkey service-token create|list|revoke`: tokens the platform's services send to authorize. */
export function registerServiceTokenCommands(program: Command): void {
  const tokens = program
    .command("service-token")
    .description("Manage the service tokens platform services use for /v1/authorize and /v1/forward-auth.");

  tokens
    .command("create")
    .description("Create a service token and print it (only this once).")
    .requiredOption("--name <name>", "what the token is for, e.g. the service that holds it", parseName)
    .option(
      "--scope <scopes>",
      "what the token may do, comma-separated: authorize (authorize, forward-auth), provision (/v1/admin)",
      parseScopes,
      [...DEFAULT_SERVICE_TOKEN_SCOPES],
    )
    .option("--url <url>", "create through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .option("--json", 'print {"id", "name", "token"} (the shape section 10 of docs/platform.md pins)')
    .action(async (options: { name: string; scope: ServiceTokenScope[]; url?: string; json?: boolean }) => {
      const { record, token } = options.url
        ? await remotely(options.url, async (admin) => {
            const made = await admin.createServiceToken(options.name, options.scope);
            return { record: fromJson(made), token: made.token };
          })
        : await withTokens((service) => service.create(options.name, undefined, options.scope), true);
      const scopes = [...record.scopes];
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ id: record.id, name: record.name, token }, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        `Created service token ${record.id} (${record.name}, scopes ${scopes.join(",")}); ` +
          `store it now, it is not shown again:\n  ${token}\nSend it as X-Latchkey-Service-Token.\n`,
      );
    });

  tokens
    .command("list")
    .description("List service tokens (never the tokens themselves).")
    .option("--url <url>", "list through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .option("--json", "print a JSON array")
    .action(async (options: { url?: string; json?: boolean }) => {
      const records = options.url
        ? await remotely(options.url, async (admin) => (await admin.listServiceTokens()).map(fromJson))
        : await withTokens((service) => service.list());
      if (options.json) {
        process.stdout.write(`${JSON.stringify(records.map(toJson), null, 2)}\n`);
        return;
      }
      if (records.length === 0) process.stdout.write("No service tokens.\n");
      for (const record of records) {
        const state = record.revokedAt === null ? "active" : `revoked ${iso(record.revokedAt)}`;
        process.stdout.write(
          `${record.id}  ${record.name.padEnd(24)} created ${iso(record.createdAt)}  ${state.padEnd(32)} ` +
            `scopes ${record.scopes.join(",")}\n`,
        );
      }
    });

  tokens
    .command("revoke")
    .description("Revoke a service token; every node refuses it from the next request on.")
    .argument("<id>", "the token's id (stk_...)")
    .option("--url <url>", "revoke through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .action(async (id: string, options: { url?: string }) => {
      if (options.url) await remotely(options.url, (admin) => admin.revokeServiceToken(id));
      else await withTokens((service) => service.revoke(id));
      process.stdout.write(`Revoked service token ${id}.\n`);
    });
}
