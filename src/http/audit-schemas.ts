import { type Static, Type } from "typebox";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import { named } from "./schemas.js";

/** The wire shapes of the audit trail, defined once like schemas.ts. */

const Snapshot = (description: string) =>
  Type.Unsafe<Record<string, unknown> | null>({
    type: ["object", "null"],
    additionalProperties: true,
    description,
  });

export const AuditEntryBody = Type.Object({
  id: Type.String({ description: "The entry's id (`aud_...`)." }),
  at: Type.String({ format: "date-time", description: "When the change was made (RFC 3339 UTC, ms)." }),
  actor: Type.String({
    description:
      "Who made it: the calling key's id (`key_...`), `operator` (CLI) or `bootstrap` (first start).",
    examples: ["key_4bT1n0cW5x2mQ8rZ7kLp3e"],
  }),
  organization_id: Type.Union([Type.String(), Type.Null()], {
    description: "The organization the change belongs to; null for deployment-wide records (service tokens).",
  }),
  action: Type.String({ enum: [...AUDIT_ACTIONS], description: "What was done." }),
  target_id: Type.String({ description: "The id of the record changed (`key_...`, `org_...`, `stk_...`)." }),
  before: Snapshot("The record before the change (null for a creation). Never a secret or a hash."),
  after: Snapshot("The record after the change. Never a secret or a hash."),
});
export type AuditEntryBody = Static<typeof AuditEntryBody>;

export const ListAuditQuery = Type.Object(
  {
    count: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Page size." }),
    page_start: Type.Optional(
      Type.String({ description: "`pagination.next_page_start` of the previous page." }),
    ),
    since: Type.Optional(
      Type.String({
        description: "Only entries made at or after this RFC 3339 time.",
        examples: ["2026-11-22T00:00:00Z"],
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListAuditQuery = Static<typeof ListAuditQuery>;

const entryExample = {
  id: "aud_0196b3c2e1f0000001",
  at: "2026-11-22T11:40:12.345Z",
  actor: "key_4vJ2mQ8sT1xZ7bN3cP5dR9",
  organization_id: "org_QH0ptbBe7WlnJxYGrHxbYS",
  action: "api_key.update",
  target_id: "key_H6xKQwLZjXNPML9k6X432u",
  before: { name: "renderer", enabled: true, permissions: ["images:create", "usage:read"] },
  after: { name: "renderer", enabled: false, permissions: ["images:create", "usage:read"] },
};

export const AuditList = Type.Object(
  {
    data: Type.Array(AuditEntryBody),
    pagination: Type.Object({ next_page_start: Type.Union([Type.String(), Type.Null()]) }),
  },
  {
    ...named("AuditList", "One page of audit entries, newest first."),
    examples: [{ data: [entryExample], pagination: { next_page_start: null } }],
  },
);
