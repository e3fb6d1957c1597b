import type { CreatedKey, UsageReport } from "./types.js";

/** The wire types of the provisioning API (`/v1/admin`, docs/provisioning.md), written by hand. */

/** An organization, as the platform manages it. */
export interface Organization {
  /** `org_...` identifier. */
  id: string;
  name: string;
  /** The platform's own id of this customer (unique); null: none. */
  external_id: string | null;
  /** false while disabled: its keys, connections and console users are refused (403). */
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** One exact sliding window. */
export interface RatePolicy {
  /** Requests (cost units) admitted in any window. */
  quota: number;
  /** The window's length: 1 second to 31 days. */
  window_seconds: number;
}

/** A group's limit. */
export interface GroupLimit {
  policies: RatePolicy[];
  /** Counted per organization (default) or per key. */
  per?: "organization" | "key";
}

/** An organization's plan; on a replacement, omitted members return to the defaults. */
export interface PlanSettings {
  image_credits?: number;
  overages?: boolean;
  /** RFC 3339 anchor of the monthly billing periods. */
  period_anchor?: string;
  max_batch_size?: number;
  proxies?: boolean;
  storage_destinations?: boolean;
  /**
   * Percentages of the allowance at which `credits.threshold_reached` is sent, once each per billing
   * period: integers 1-100, at most 5 (default `[80, 100]`; `[]` sends none).
   */
  credit_thresholds?: number[];
}

/** An organization's effective plan. */
export type Plan = Required<PlanSettings>;

/** Name and description of an owner key. */
export interface OwnerKeySettings {
  name?: string | null;
  description?: string | null;
}

export interface CreateOrganizationRequest {
  name: string;
  external_id?: string | null;
  plan?: PlanSettings;
  limits?: Record<string, GroupLimit>;
  owner_key?: OwnerKeySettings;
}

/** The new organization and its owner key, whose `api_key` is shown only here. */
export interface CreatedOrganization {
  organization: Organization;
  key: CreatedKey;
}

export interface UpdateOrganizationRequest {
  name?: string;
  external_id?: string | null;
  disabled?: boolean;
}

export interface ListOrganizationsOptions {
  /** Page size, 1 to 100 (default 10). */
  count?: number;
  pageStart?: string;
  namePrefix?: string;
  externalId?: string;
}

export interface OrganizationPage {
  data: Organization[];
  pagination: { next_page_start: string | null };
}

export interface CreditGrantRequest {
  /** 1 to 1,000,000,000. */
  credits: number;
  /** RFC 3339, in the future; null or omitted: never. */
  expires_at?: string | null;
  reason?: string | null;
}

/** A credit grant and what is left of it now (0 once expired). */
export interface CreditGrant {
  id: string;
  credits: number;
  remaining: number;
  expires_at: string | null;
  reason: string | null;
  created_at: string;
}

export interface CreditGrantPage {
  data: CreditGrant[];
  pagination: { next_page_start: string | null };
}

/** A group's limit for one organization, and where it comes from. */
export interface EffectiveLimit {
  policies: RatePolicy[];
  per: "organization" | "key";
  source: "default" | "override";
}

export interface OrganizationLimits {
  data: Record<string, EffectiveLimit>;
  /** Keys the organization may hold, disabled ones included. */
  max_keys: number;
}

/** A group of the platform's and its limit. */
export interface GroupDefinition {
  name: string;
  policies: RatePolicy[];
  per: "organization" | "key";
}

export type { UsageReport };

/** A service token, never the token itself. */
export interface ServiceToken {
  /** `stk_...` identifier. */
  id: string;
  name: string;
  scopes: ("authorize" | "provision")[];
  created_at: string;
  revoked_at: string | null;
}

/** A new service token, with the token shown only here. */
export interface CreatedServiceToken extends ServiceToken {
  token: string;
}
