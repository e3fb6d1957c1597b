/** Management operation groups: one read and one write group per resource family (spec, "Limits"). */
export const RATE_LIMIT_GROUPS = [
  "api-key:read",
  "api-key:write",
  "proxy:read",
  "proxy:write",
  "storage-destination:read",
  "storage-destination:write",
  "og-config:read",
  "og-config:write",
  "webhook:read",
  "webhook:write",
] as const;

export type RateLimitGroup = (typeof RATE_LIMIT_GROUPS)[number];

export function isRateLimitGroup(name: string): name is RateLimitGroup {
  return (RATE_LIMIT_GROUPS as readonly string[]).includes(name);
}

/** Requests per window that every organization gets unless an operator raises it. */
export function defaultQuota(group: RateLimitGroup): number {
  return group.endsWith(":read") ? 100 : 20;
}

/** The 429 message: names the group and its allowance and points at support, as the spec asks. */
export function rateLimitMessage(
  group: string,
  quota: number,
  windowSeconds: number,
  counted: "organization" | "key" = "organization",
): string {
  const per = windowSeconds === 60 ? "per minute" : `per ${windowSeconds} seconds`;
  return (
    `Rate limit exceeded. The ${group} operation group allows ${quota} requests ${per} per ${counted}. ` +
    "If you need a higher limit, contact support."
  );
}
