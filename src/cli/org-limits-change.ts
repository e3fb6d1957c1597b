import type { OrganizationLimits } from "@latchkey/client";
import type { WindowFlag } from "./rate-limit-windows.js";

/** A group's change asked of `org limits`, as both modes (database, `--url`) apply it. */
export type GroupChange =
  /** `--policy`: the organization's own windows for the group. */
  | { type: "windows"; group: string; policies: WindowFlag[]; per?: "organization" | "key" }
  /** `--quota`: one window of the group's length, for a management group. */
  | { type: "quota"; group: string; quota: number }
  /** `default`: the group's own limit applies again. */
  | { type: "remove"; group: string };

/** The override to write for a `windows` change: without --per, the group keeps how it counts now. */
export function overrideOf(
  change: Extract<GroupChange, { type: "windows" }>,
  current: OrganizationLimits,
): { policies: WindowFlag[]; per: "organization" | "key" } {
  return { policies: change.policies, per: change.per ?? current.data[change.group]?.per ?? "organization" };
}
