import { randomUUID } from "node:crypto";
import type { Transport } from "./transport.js";
import type { ListResourcesOptions, ResourceContent, ResourcePage, ResourceRecord } from "./types.js";
import { allPages } from "./pages.js";

/** Where one family lives on the server and which groups it counts against. */
interface FamilyRoute {
  /** Collection path, e.g. `/v1/proxies`. */
  path: string;
  /** Read group (list, get), for spacing. */
  read: string;
  /** Write group (create, update, delete), for spacing. */
  write: string;
}

/**
 * The operations of one resource family (proxies, storage destinations, OG configurations), reached as
 * `client.proxies`, `client.storageDestinations` and `client.ogConfigs`; the same methods as `client.keys`.
 */
export class ResourceFamilyClient {
  readonly #transport: Transport;
  readonly #route: FamilyRoute;

  /** @internal Built by `LatchkeyClient`. */
  constructor(transport: Transport, route: FamilyRoute) {
    this.#transport = transport;
    this.#route = route;
  }

  #recordPath(id: string): string {
    if (id === "") throw new TypeError("A record id is required.");
    return `${this.#route.path}/${encodeURIComponent(id)}`;
  }

  /** Creates a record; 409 `resource_quota_exceeded` once the organization holds 1,000 of the family. */
  async create(content: ResourceContent): Promise<ResourceRecord> {
    return this.#transport.request({
      method: "POST",
      path: this.#route.path,
      body: content,
      group: this.#route.write,
      // One key for this create and all its retries: they never make a second record.
      idempotencyKey: randomUUID(),
    });
  }

  /** Reads one record by id. */
  async get(id: string): Promise<ResourceRecord> {
    return this.#transport.request({ method: "GET", path: this.#recordPath(id), group: this.#route.read });
  }

  /** Replaces the record's whole content: members left out return to their defaults. */
  async update(id: string, content: ResourceContent): Promise<ResourceRecord> {
    const path = this.#recordPath(id);
    return this.#transport.request({ method: "POST", path, body: content, group: this.#route.write });
  }

  /** Removes the record; deleting it again succeeds. */
  async delete(id: string): Promise<void> {
    await this.#transport.request({ method: "DELETE", path: this.#recordPath(id), group: this.#route.write });
  }

  /** Reads one page, newest first (disabled records included). */
  async list(options: ListResourcesOptions = {}): Promise<ResourcePage> {
    const query = new URLSearchParams();
    if (options.count !== undefined) query.set("count", String(options.count));
    if (options.pageStart !== undefined) query.set("page_start", options.pageStart);
    return this.#transport.request({ method: "GET", path: this.#route.path, query, group: this.#route.read });
  }

  /** Yields every page in turn (100 records each unless `count` says otherwise). */
  async *listAll(
    options: Omit<ListResourcesOptions, "pageStart"> = {},
  ): AsyncGenerator<ResourcePage, void, undefined> {
    yield* allPages((pageStart) =>
      this.list({ count: 100, ...options, ...(pageStart ? { pageStart } : {}) }),
    );
  }
}

/** `client.storageDestinations`: the family's operations plus the organization's AWS external id. */
export class StorageDestinationsClient extends ResourceFamilyClient {
  readonly #transport: Transport;

  /** @internal Built by `LatchkeyClient`. */
  constructor(transport: Transport) {
    super(transport, {
      path: "/v1/storage-destinations",
      read: "storage-destination:read",
      write: "storage-destination:write",
    });
    this.#transport = transport;
  }

  /**
   * The external id to put in the trust policy of the IAM role a storage destination uses; the same on
   * every call. Needs `storage_destinations:create_update`.
   */
  async awsExternalId(): Promise<string> {
    const body = await this.#transport.request<{ external_id: string }>({
      method: "GET",
      path: "/v1/storage-destinations/aws-external-id",
      group: "storage-destination:read",
    });
    return body.external_id;
  }
}

/** @internal The proxies family's route. */
export const PROXIES_ROUTE: FamilyRoute = { path: "/v1/proxies", read: "proxy:read", write: "proxy:write" };
/** @internal The OG configurations family's route. */
export const OG_CONFIGS_ROUTE: FamilyRoute = {
  path: "/v1/og-configs",
  read: "og-config:read",
  write: "og-config:write",
};
