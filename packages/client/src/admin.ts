import { randomUUID } from "node:crypto";
import type {
  CreatedOrganization,
  CreateOrganizationRequest,
  CreditGrant,
  CreditGrantPage,
  CreditGrantRequest,
  CreatedServiceToken,
  ServiceToken,
  EffectiveLimit,
  GroupDefinition,
  GroupLimit,
  ListOrganizationsOptions,
  Organization,
  OrganizationLimits,
  OrganizationPage,
  OwnerKeySettings,
  Plan,
  PlanSettings,
  UpdateOrganizationRequest,
  UsageReport,
} from "./admin-types.js";
import { allPages } from "./pages.js";
import type { RequestSpec, Transport } from "./transport.js";
import type { CreatedKey, PlatformUsageExportRow, UsageExportOptions } from "./types.js";
import { exportText, ndjsonRows } from "./usage-export.js";
import { WebhooksResource } from "./webhooks.js";

/**
 * The provisioning API (`/v1/admin`), reached as `client.admin`: the platform's own code signs
 * customers up, sells plans, grants credits, raises limits and recovers owner keys. Needs the client's
 * `serviceToken`, with the `provision` scope. Every create carries an `Idempotency-Key` (one per call,
 * the same on its retries), so a retry after a lost answer never creates twice.
 */
export class AdminResource {
  readonly #transport: Transport;
  /** The platform's webhook endpoints: every organization's events, and the organizations' own. */
  readonly webhooks: WebhooksResource;

  /** @internal Built by `LatchkeyClient`. */
  constructor(transport: Transport) {
    this.#transport = transport;
    this.webhooks = new WebhooksResource(transport, "/v1/admin");
  }

  #send<T>(spec: Omit<RequestSpec, "authentication">): Promise<T> {
    return this.#transport.request({ ...spec, authentication: "service-token" });
  }

  #org(orgId: string, rest = ""): string {
    if (orgId === "") throw new TypeError("An organization id is required.");
    return `/v1/admin/organizations/${encodeURIComponent(orgId)}${rest}`;
  }

  /** Creates an organization with its plan, limits and owner key; the key's `api_key` is shown only here. */
  createOrganization(
    request: CreateOrganizationRequest,
    idempotencyKey = randomUUID(),
  ): Promise<CreatedOrganization> {
    return this.#send({ method: "POST", path: "/v1/admin/organizations", body: request, idempotencyKey });
  }

  /** One page of organizations, newest first; `externalId` finds the one of a customer. */
  listOrganizations(options: ListOrganizationsOptions = {}): Promise<OrganizationPage> {
    const query = new URLSearchParams();
    if (options.count !== undefined) query.set("count", String(options.count));
    if (options.pageStart !== undefined) query.set("page_start", options.pageStart);
    if (options.namePrefix !== undefined) query.set("name_prefix", options.namePrefix);
    if (options.externalId !== undefined) query.set("external_id", options.externalId);
    return this.#send({ method: "GET", path: "/v1/admin/organizations", query });
  }

  /** Every organization matching `options`, page after page. */
  async *listAllOrganizations(
    options: Omit<ListOrganizationsOptions, "pageStart"> = {},
  ): AsyncGenerator<Organization> {
    for await (const page of allPages((pageStart) =>
      this.listOrganizations({ ...options, ...(pageStart === undefined ? {} : { pageStart }) }),
    )) {
      yield* page.data;
    }
  }

  /** The organization of the platform's customer `externalId`, or undefined. */
  async findOrganization(externalId: string): Promise<Organization | undefined> {
    return (await this.listOrganizations({ externalId, count: 1 })).data[0];
  }

  getOrganization(orgId: string): Promise<Organization> {
    return this.#send({ method: "GET", path: this.#org(orgId) });
  }

  /** Changes the members given; `{ disabled: true }` refuses the organization's keys and users at once. */
  updateOrganization(orgId: string, changes: UpdateOrganizationRequest): Promise<Organization> {
    return this.#send({ method: "PATCH", path: this.#org(orgId), body: changes });
  }

  getPlan(orgId: string): Promise<Plan> {
    return this.#send({ method: "GET", path: this.#org(orgId, "/plan") });
  }

  /** Replaces the plan: members left out return to the deployment's defaults. */
  replacePlan(orgId: string, plan: PlanSettings): Promise<Plan> {
    return this.#send({ method: "PUT", path: this.#org(orgId, "/plan"), body: plan });
  }

  /** A new owner key (recovery); its `api_key` is shown only here. */
  createOwnerKey(
    orgId: string,
    settings: OwnerKeySettings = {},
    idempotencyKey = randomUUID(),
  ): Promise<CreatedKey> {
    return this.#send({
      method: "POST",
      path: this.#org(orgId, "/owner-keys"),
      body: settings,
      idempotencyKey,
    });
  }

  /** The organization's usage, as its own `GET /v1/usage` shows it. */
  getUsage(orgId: string): Promise<UsageReport> {
    return this.#send({ method: "GET", path: this.#org(orgId, "/usage") });
  }

  /**
   * `GET /v1/admin/usage/export`: every organization's images and decisions per hour or day, each row
   * with the organization's `external_id`, by organization id then time, parsed as they arrive
   * (constant memory). `from` and `to` on a UTC hour, at most 31 days apart.
   */
  exportUsage(options: UsageExportOptions): AsyncGenerator<PlatformUsageExportRow> {
    return ndjsonRows(
      exportText(this.#transport, "/v1/admin/usage/export", options, "ndjson", "service-token"),
    );
  }

  /** The same export as text (`ndjson` or `csv`), chunk by chunk, e.g. to write to a file. */
  exportUsageText(options: UsageExportOptions, format: "ndjson" | "csv" = "csv"): AsyncGenerator<string> {
    return exportText(this.#transport, "/v1/admin/usage/export", options, format, "service-token");
  }

  /** Grants credits consumed after the period's allowance, until used or expired. */
  grantCredits(
    orgId: string,
    grant: CreditGrantRequest,
    idempotencyKey = randomUUID(),
  ): Promise<CreditGrant> {
    return this.#send({
      method: "POST",
      path: this.#org(orgId, "/credit-grants"),
      body: grant,
      idempotencyKey,
    });
  }

  /** One page of the organization's credit grants, newest first, with what is left of each. */
  listCreditGrants(
    orgId: string,
    options: { count?: number; pageStart?: string } = {},
  ): Promise<CreditGrantPage> {
    const query = new URLSearchParams();
    if (options.count !== undefined) query.set("count", String(options.count));
    if (options.pageStart !== undefined) query.set("page_start", options.pageStart);
    return this.#send({ method: "GET", path: this.#org(orgId, "/credit-grants"), query });
  }

  /** Every group's limit for the organization, and whether it is its own override. */
  getLimits(orgId: string): Promise<OrganizationLimits> {
    return this.#send({ method: "GET", path: this.#org(orgId, "/limits") });
  }

  /** Overrides one group's limit for the organization. */
  setLimit(orgId: string, group: string, limit: GroupLimit): Promise<EffectiveLimit> {
    return this.#send({
      method: "PUT",
      path: this.#org(orgId, `/limits/${encodeURIComponent(group)}`),
      body: limit,
    });
  }

  /** Removes the organization's override: the group's own limit applies again. */
  async removeLimit(orgId: string, group: string): Promise<void> {
    await this.#send({ method: "DELETE", path: this.#org(orgId, `/limits/${encodeURIComponent(group)}`) });
  }

  /** Declares or redefines a group of the platform's own. */
  putGroup(group: string, limit: GroupLimit): Promise<GroupDefinition> {
    return this.#send({ method: "PUT", path: `/v1/admin/groups/${encodeURIComponent(group)}`, body: limit });
  }

  /** A new service token (default scope `authorize`); the token is shown only here. */
  createServiceToken(
    name: string,
    scopes?: ("authorize" | "provision")[],
    idempotencyKey = randomUUID(),
  ): Promise<CreatedServiceToken> {
    const body = scopes === undefined ? { name } : { name, scopes };
    return this.#send({ method: "POST", path: "/v1/admin/service-tokens", body, idempotencyKey });
  }

  /** Every service token, oldest first; never the tokens. */
  async listServiceTokens(): Promise<ServiceToken[]> {
    return (await this.#send<{ data: ServiceToken[] }>({ method: "GET", path: "/v1/admin/service-tokens" }))
      .data;
  }

  /** Revokes a service token: every node refuses it from the next request. */
  async revokeServiceToken(id: string): Promise<void> {
    await this.#send({ method: "DELETE", path: `/v1/admin/service-tokens/${encodeURIComponent(id)}` });
  }
}
