import { expect, test } from "vitest";
import { failingTypeChecks } from "../helpers/wire-type-checks.js";

/*
 * The client's hand-written wire types against the server's TypeBox schemas, the ones that also
 * validate requests and make the OpenAPI components (see test/helpers/wire-type-checks.ts). One
 * compiler run checks them all, with deliberate drifts to prove that a check can fail.
 */

const IMPORTS = `
import type { Static } from "typebox";
import type * as Keys from "../../src/http/schemas.js";
import type * as Platform from "../../src/http/platform-schemas.js";
import type * as Resources from "../../src/domain/resource-schemas.js";
import type * as Client from "../../packages/client/src/types.js";
import type * as Admin from "../../src/http/admin-schemas.js";
import type * as Limits from "../../src/http/limit-schemas.js";
import type * as ClientAdmin from "../../packages/client/src/admin-types.js";
import type * as Export from "../../src/http/usage-export-schemas.js";
import type * as Webhooks from "../../src/http/webhook-schemas.js";
import type * as ClientWebhooks from "../../packages/client/src/webhook-types.js";
type KeyRequest = Static<typeof Keys.KeyConfigurationBody>;
type KeyRecord = Static<typeof Keys.KeyRecord>;
type Created = Static<typeof Keys.CreatedKeyRecord>;
type KeyList = Static<typeof Keys.KeyList>;
type Rolled = Static<typeof Keys.RolledKeyRecord>;
type Decision = Platform.AuthorizeDecision;
type Usage = Static<typeof Platform.UsageReportBody>;
`;

const KEYS = `
export const requestKeys: SameKeys<Client.KeyConfiguration, KeyRequest> = true;
export const requestRequired: SameRequired<Client.KeyConfiguration, KeyRequest> = true;
export const requestSends: Sends<Client.KeyConfiguration, KeyRequest> = true;
export const recordKeys: SameKeys<Client.KeyRecord, KeyRecord> = true;
export const recordRequired: SameRequired<Client.KeyRecord, KeyRecord> = true;
export const recordReads: Reads<Client.KeyRecord, KeyRecord> = true;
export const createdKeys: SameKeys<Client.CreatedKey, Created> = true;
export const createdReads: Reads<Client.CreatedKey, Created> = true;
export const rolledKeys: SameKeys<Client.RolledKey, Rolled> = true;
export const rolledReads: Reads<Client.RolledKey, Rolled> = true;
export const pageKeys: SameKeys<Client.KeyPage, KeyList> = true;
export const paginationKeys: SameKeys<Client.KeyPage["pagination"], KeyList["pagination"]> = true;
export const pageReads: Reads<Client.KeyPage, KeyList> = true;
export const errorKeys: SameKeys<Client.ErrorBody, Keys.ErrorBody> = true;
export const errorReads: Reads<Client.ErrorBody, Keys.ErrorBody> = true;
`;

const PLATFORM = `
export const authorizeKeys: SameKeys<Client.AuthorizeRequest, Platform.AuthorizeBody> = true;
export const authorizeSends: Sends<Client.AuthorizeRequest, Platform.AuthorizeBody> = true;
export const decisionKeys: SameKeys<Client.AuthorizeDecision, Decision> = true;
export const decisionReads: Reads<Client.AuthorizeDecision, Decision> = true;
export const decisionKeyKeys: SameKeys<Client.DecisionKey, NonNullable<Decision["key"]>> = true;
export const decisionErrorKeys: SameKeys<Client.ErrorBody, NonNullable<Decision["error"]>> = true;
export const usageKeys: SameKeys<Client.UsageReport, Usage> = true;
export const usageDataKeys: SameKeys<Client.UsageReport["data"], Usage["data"]> = true;
export const periodKeys: SameKeys<Client.BillingPeriodUsage, Usage["per_billing_period"][number]> = true;
export const usageReads: Reads<Client.UsageReport, Usage> = true;
type ExportRow = Static<typeof Export.UsageExportRow>;
type PlatformExportRow = Static<typeof Export.PlatformUsageExportRow>;
type ExportQuery = Static<typeof Export.UsageExportQuery>;
export const exportRowKeys: SameKeys<Client.UsageExportRow, ExportRow> = true;
export const exportRowReads: Reads<Client.UsageExportRow, ExportRow> = true;
export const exportDecisionKeys: SameKeys<Client.UsageExportRow["decisions"], ExportRow["decisions"]> = true;
export const platformRowKeys: SameKeys<Client.PlatformUsageExportRow, PlatformExportRow> = true;
export const platformRowReads: Reads<Client.PlatformUsageExportRow, PlatformExportRow> = true;
export const exportGranularity: Sends<
  NonNullable<Client.UsageExportOptions["granularity"]>,
  ExportQuery["granularity"]
> = true;
`;

const RESOURCES = `
export const contentKeys: SameKeys<Client.ResourceContent, Resources.ResourceContent> = true;
export const contentRequired: SameRequired<Client.ResourceContent, Resources.ResourceContent> = true;
export const contentSends: Sends<Client.ResourceContent, Resources.ResourceContent> = true;
export const resourceKeys: SameKeys<Client.ResourceRecord, Resources.ResourceRecord> = true;
export const resourceReads: Reads<Client.ResourceRecord, Resources.ResourceRecord> = true;
export const resourcePageKeys: SameKeys<Client.ResourcePage, Resources.ResourcePage> = true;
export const resourcePageReads: Reads<Client.ResourcePage, Resources.ResourcePage> = true;
`;

const ADMIN = `
type Org = Static<typeof Admin.OrganizationRecordBody>;
type CreateOrg = Static<typeof Admin.CreateOrganizationBody>;
type CreatedOrg = Static<typeof Admin.CreatedOrganizationBody>;
type UpdateOrg = Static<typeof Admin.UpdateOrganizationBody>;
type OrgList = Static<typeof Admin.OrganizationList>;
type PlanIn = Static<typeof Admin.PlanBody>;
type PlanOut = Static<typeof Admin.PlanRecordBody>;
type GrantIn = Static<typeof Admin.CreditGrantBody>;
type GrantOut = Static<typeof Admin.CreditGrantRecord>;
type GrantList = Static<typeof Admin.CreditGrantList>;
type GroupIn = Static<typeof Limits.GroupLimitBody>;
type GroupOut = Static<typeof Limits.GroupDefinition>;
type LimitsOut = Static<typeof Limits.OrganizationLimitsBody>;
type OwnerIn = Static<typeof Admin.OwnerKeyBody>;
export const orgKeys: SameKeys<ClientAdmin.Organization, Org> = true;
export const orgReads: Reads<ClientAdmin.Organization, Org> = true;
export const createKeys: SameKeys<ClientAdmin.CreateOrganizationRequest, CreateOrg> = true;
export const createSends: Sends<ClientAdmin.CreateOrganizationRequest, CreateOrg> = true;
export const orgCreatedKeys: SameKeys<ClientAdmin.CreatedOrganization, CreatedOrg> = true;
export const orgCreatedReads: Reads<ClientAdmin.CreatedOrganization, CreatedOrg> = true;
export const updateKeys: SameKeys<ClientAdmin.UpdateOrganizationRequest, UpdateOrg> = true;
export const updateSends: Sends<ClientAdmin.UpdateOrganizationRequest, UpdateOrg> = true;
export const orgPageReads: Reads<ClientAdmin.OrganizationPage, OrgList> = true;
export const planKeys: SameKeys<ClientAdmin.PlanSettings, PlanIn> = true;
export const planSends: Sends<ClientAdmin.PlanSettings, PlanIn> = true;
export const planReads: Reads<ClientAdmin.Plan, PlanOut> = true;
export const ownerSends: Sends<ClientAdmin.OwnerKeySettings, OwnerIn> = true;
export const grantSends: Sends<ClientAdmin.CreditGrantRequest, GrantIn> = true;
export const grantKeys: SameKeys<ClientAdmin.CreditGrant, GrantOut> = true;
export const grantReads: Reads<ClientAdmin.CreditGrant, GrantOut> = true;
export const grantPageReads: Reads<ClientAdmin.CreditGrantPage, GrantList> = true;
export const groupSends: Sends<ClientAdmin.GroupLimit, GroupIn> = true;
export const groupReads: Reads<ClientAdmin.GroupDefinition, GroupOut> = true;
export const limitsReads: Reads<ClientAdmin.OrganizationLimits, LimitsOut> = true;
`;

const WEBHOOKS = `
type WhCreate = Static<typeof Webhooks.WebhookEndpointCreateBody>;
type WhUpdate = Static<typeof Webhooks.WebhookEndpointUpdateBody>;
type WhRecord = Static<typeof Webhooks.WebhookEndpointRecord>;
type WhCreated = Static<typeof Webhooks.CreatedWebhookEndpoint>;
type WhList = Static<typeof Webhooks.WebhookEndpointList>;
type WhRotated = Static<typeof Webhooks.RotatedWebhookSecret>;
type WhMessage = Static<typeof Webhooks.WebhookMessageRecord>;
type WhAttempts = Static<typeof Webhooks.WebhookAttemptList>;
export const whCreateKeys: SameKeys<ClientWebhooks.CreateWebhookEndpointRequest, WhCreate> = true;
export const whCreateRequired: SameRequired<ClientWebhooks.CreateWebhookEndpointRequest, WhCreate> = true;
export const whUpdateKeys: SameKeys<ClientWebhooks.UpdateWebhookEndpointRequest, WhUpdate> = true;
export const whRecordKeys: SameKeys<ClientWebhooks.WebhookEndpoint, WhRecord> = true;
export const whRecordReads: Reads<ClientWebhooks.WebhookEndpoint, WhRecord> = true;
export const whCreatedKeys: SameKeys<ClientWebhooks.CreatedWebhookEndpoint, WhCreated> = true;
export const whCreatedReads: Reads<ClientWebhooks.CreatedWebhookEndpoint, WhCreated> = true;
export const whListKeys: SameKeys<ClientWebhooks.WebhookEndpointPage, WhList> = true;
export const whRotatedKeys: SameKeys<ClientWebhooks.RotatedWebhookSecret, WhRotated> = true;
export const whMessageKeys: SameKeys<ClientWebhooks.WebhookMessage, WhMessage> = true;
export const whMessageReads: Reads<ClientWebhooks.WebhookMessage, WhMessage> = true;
export const whAttemptKeys: SameKeys<ClientWebhooks.WebhookAttempt, WhAttempts["data"][number]> = true;
export const whAttemptReads: Reads<ClientWebhooks.WebhookAttemptPage, WhAttempts> = true;
`;

// Deliberate drifts: a member the client lacks, one it makes optional, and one it types differently.
const DRIFTS = `
export const driftMissing: SameKeys<Omit<Client.KeyRecord, "updated_at">, KeyRecord> = true;
export const driftOptional: SameRequired<Omit<Client.KeyRecord, "name"> & { name?: string }, KeyRecord> = true;
export const driftRetyped: Reads<Omit<Client.KeyRecord, "enabled"> & { enabled: string }, KeyRecord> = true;
export const driftSends: Sends<Omit<Client.AuthorizeRequest, "credits"> & { credits?: string }, Platform.AuthorizeBody> = true;
`;

test("the client's wire types match the server's TypeBox schemas, and drifts are caught", () => {
  expect(failingTypeChecks(IMPORTS + KEYS + PLATFORM + RESOURCES + ADMIN + WEBHOOKS + DRIFTS).sort()).toEqual(
    ["driftMissing", "driftOptional", "driftRetyped", "driftSends"],
  );
}, 60_000);
