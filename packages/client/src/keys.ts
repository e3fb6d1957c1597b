import { randomUUID } from "node:crypto";
import { configurationOf } from "./configuration.js";
import { type RotateOptions, rotateKey } from "./rotate.js";
import type { Transport } from "./transport.js";
import type {
  CreatedKey,
  KeyConfiguration,
  KeyPage,
  KeyRecord,
  ListKeysOptions,
  RolledKey,
} from "./types.js";
import { allPages } from "./pages.js";

const READ = "api-key:read";
const WRITE = "api-key:write";

function keyPath(id: string): string {
  if (id === "") throw new TypeError("A key id is required.");
  return `/v1/api-keys/${encodeURIComponent(id)}`;
}

function listQuery(options: ListKeysOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.count !== undefined) query.set("count", String(options.count));
  if (options.pageStart !== undefined) query.set("page_start", options.pageStart);
  if (options.includeDisabled) query.set("include_disabled", "true");
  // Repeated once per name: the server refuses names joined by commas or spaces.
  for (const permission of options.withPermission ?? []) query.append("with_permission", permission);
  for (const [name, value] of Object.entries(options.metadata ?? {})) query.set(`metadata[${name}]`, value);
  if (options.namePrefix !== undefined) query.set("name_prefix", options.namePrefix);
  return query;
}

/** The API-key operations, reached as `client.keys`. */
export class KeysResource {
  readonly #transport: Transport;

  /** @internal Built by `LatchkeyClient`. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a key. The response is the only time its secret (`api_key`) is shown: store it now.
   * Needs `api_keys:create_update` and authority over every requested permission. `idempotencyKey`
   * (default: a new UUID per call) is sent on every retry; a repeat whose secret the server could not
   * keep throws {@link SecretWithheldError}.
   */
  async create(config: KeyConfiguration, idempotencyKey: string = randomUUID()): Promise<CreatedKey> {
    return this.#transport.request({
      method: "POST",
      path: "/v1/api-keys",
      body: config,
      group: WRITE,
      // One key for this create and all its retries: they never make a second key.
      idempotencyKey,
    });
  }

  /** Reads one key by its resource id (`key_...`, not its `api_id`); disabled keys too. */
  async get(id: string): Promise<KeyRecord> {
    return this.#transport.request({ method: "GET", path: keyPath(id), group: READ });
  }

  /**
   * Replaces the key's whole configuration. Members left out return to their defaults (the name to
   * `Key created ...`, the description to none), so pass everything to keep; build it with
   * {@link configurationOf}. The secret is neither rotated nor returned.
   */
  async update(id: string, config: KeyConfiguration): Promise<KeyRecord> {
    return this.#transport.request({ method: "POST", path: keyPath(id), body: config, group: WRITE });
  }

  /** Disables the key (it is never removed and still counts toward the quota). Repeating it succeeds. */
  async disable(id: string): Promise<void> {
    await this.#transport.request({ method: "DELETE", path: keyPath(id), group: WRITE });
  }

  /**
   * Gives the key a new secret (same `id` and `api_id`), returned only here; the previous secret keeps
   * authenticating for `overlapSeconds` (0 to 604,800, 0 refusing it at once; default: the server's, an hour) and a second roll
   * during an overlap ends the first one. Needs `api_keys:create_update` and authority over the key's
   * permissions. Never repeated after an unclear failure: a repeat would end the overlap it started.
   */
  async roll(id: string, options: { overlapSeconds?: number } = {}): Promise<RolledKey> {
    return this.#transport.request({
      method: "POST",
      path: `${keyPath(id)}/roll`,
      body: options.overlapSeconds === undefined ? {} : { overlap_seconds: options.overlapSeconds },
      group: WRITE,
    });
  }

  /**
   * Re-enables a key, keeping its name, description and permissions: reads it, then resends its
   * configuration with `disabled: false`. Its original secret works again; a compromised key should be
   * rotated instead. Two requests (a read and a write); a change made by someone else in between is
   * overwritten.
   */
  async enable(id: string): Promise<KeyRecord> {
    const current = await this.get(id);
    return this.update(id, { ...configurationOf(current), disabled: false });
  }

  /** Reads one page of keys, newest first; pass `pagination.next_page_start` as `pageStart` for the next. */
  async list(options: ListKeysOptions = {}): Promise<KeyPage> {
    return this.#transport.request({
      method: "GET",
      path: "/v1/api-keys",
      query: listQuery(options),
      group: READ,
    });
  }

  /**
   * Yields every page of the listing in turn, following `next_page_start` until it is null. Pages are
   * 100 keys unless `count` says otherwise, to spend few requests of the read group.
   *
   * ```ts
   * for await (const page of client.keys.listAll({ includeDisabled: true })) {
   *   for (const key of page.data) console.log(key.id, key.name);
   * }
   * ```
   */
  async *listAll(options: Omit<ListKeysOptions, "pageStart"> = {}): AsyncGenerator<KeyPage, void, undefined> {
    yield* allPages((pageStart) =>
      this.list({ count: 100, ...options, ...(pageStart ? { pageStart } : {}) }),
    );
  }

  /**
   * Replaces a key with a new one, as the spec prescribes:
   * 1. read the old key; 2. create a key with the same name, description, permissions, all-future
   * flag and (future) expiry; 3. `store` the new credentials; 4. verify they authenticate, then run
   * your `verify`; 5. only then disable the old key. Returns the new key with its secret.
   *
   * If a step fails, the old key is left enabled and a `KeyRotationError` says which `step` failed and
   * which `newKeyId` (if any) to clean up. When `id` is the key this client authenticates with, the
   * client switches to the new credentials once the rotation succeeds.
   *
   * With `{ overlapSeconds }`, latchkey's roll is used instead: read -> roll (same id and api_id, a new
   * secret; the old one works for the overlap) -> store -> verify. Nothing is disabled: the old secret
   * simply stops at the end of the overlap, so `verify` must finish within it.
   */
  async rotate(id: string, options: RotateOptions = {}): Promise<CreatedKey> {
    keyPath(id);
    return rotateKey(this, this.#transport, id, options);
  }
}
