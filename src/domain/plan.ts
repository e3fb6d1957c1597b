import { invalidRequest } from "./errors.js";
import type { Permission } from "./permissions.js";

/** Largest image credits or batch size a plan may name. */
export const MAX_PLAN_NUMBER = 1_000_000_000;

/** An organization's plan: what it may consume and which resource families it may use. */
export interface Plan {
  /** Image credits per billing period. */
  imageCredits: number;
  /** When on, consumption past the allowance is allowed and recorded instead of refused. */
  overages: boolean;
  /** Epoch milliseconds the monthly billing periods are anchored at. */
  periodAnchor: number;
  /** Largest batch of images one request may create; 0 means no batching. */
  maxBatchSize: number;
  /** Whether the plan includes proxies. */
  proxies: boolean;
  /** Whether the plan includes storage destinations. */
  storageDestinations: boolean;
  /** Percentages of the allowance at which `credits.threshold_reached` is sent, ascending. */
  creditThresholds: readonly number[];
}

/** The credit alerts of a plan that names none: at 80% and at 100% of the allowance. */
export const DEFAULT_CREDIT_THRESHOLDS: readonly number[] = [80, 100];
/** At most this many credit alerts per plan. */
export const MAX_CREDIT_THRESHOLDS = 5;

/**
 * A plan's credit alert percentages, checked (integers 1-100, distinct, at most 5; the wire schemas say
 * the same, this holds the command line and every other caller) and sorted; 400 naming the member.
 */
export function creditThresholdsOf(values: readonly number[], path: string): number[] {
  if (values.length > MAX_CREDIT_THRESHOLDS) {
    throw invalidRequest(`At most ${MAX_CREDIT_THRESHOLDS} credit thresholds are allowed.`, path);
  }
  values.forEach((value, index) => {
    if (!Number.isInteger(value) || value < 1 || value > 100) {
      throw invalidRequest("A credit threshold is a whole percentage from 1 to 100.", `${path}/${index}`);
    }
    if (values.indexOf(value) !== index) {
      throw invalidRequest(`The credit threshold ${value} is named twice.`, `${path}/${index}`);
    }
  });
  return [...values].sort((a, b) => a - b);
}

/** Resource families a plan can switch off (docs/resource-families.md). */
export type PlanFeature = "proxies" | "storageDestinations";

/** The plan feature an operation's permission belongs to, if that family is one a plan can exclude. */
export function planFeatureOf(permission: Permission): PlanFeature | undefined {
  if (permission.startsWith("proxies:")) return "proxies";
  if (permission.startsWith("storage_destinations:")) return "storageDestinations";
  return undefined;
}

const FEATURE_NAMES: Record<PlanFeature, string> = {
  proxies: "proxies",
  storageDestinations: "storage destinations",
};

export function planRestrictedMessage(feature: PlanFeature): string {
  return `This organization's plan does not include ${FEATURE_NAMES[feature]}. Contact support to change the plan.`;
}

/** The plan-limit 429 message (docs/plans-and-usage.md): what is used, when it resets, that waiting won't help. */
export function planLimitMessage(used: number, allowed: number, requested: number, resetsAt: number): string {
  return (
    `Plan limit exceeded: ${used} of ${allowed} image credits of this billing period are used, ` +
    `and this request needs ${requested}. Credits reset at ${new Date(resetsAt).toISOString()}; ` +
    "waiting a minute does not restore credits. Upgrade the plan or turn on overages to continue."
  );
}
