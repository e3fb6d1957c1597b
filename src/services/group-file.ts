import { type GroupLimit } from "../domain/rate-limit-policies.js";
import { groupDeclarationProblem, groupLimitFromJson } from "../domain/group-definitions.js";
import { GroupLimitsBody } from "../http/limit-schemas.js";
import type { Config } from "../config.js";
import { loadSettingFile } from "../setting-file.js";
import { validateInput } from "./validate-input.js";

/**
 * Parses the `LATCHKEY_GROUPS` file: `{"<group>": {"policies": [...], "per"?}}`. Any problem stops the
 * start with a message naming the file and the group.
 */
export function parseGroupsFile(text: string, source: string): Record<string, GroupLimit> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON: ${(error as Error).message}`);
  }
  let body: Record<
    string,
    { policies: { quota: number; window_seconds: number }[]; per?: "organization" | "key" }
  >;
  try {
    body = validateInput(GroupLimitsBody, json);
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`);
  }
  const groups: Record<string, GroupLimit> = Object.create(null) as Record<string, GroupLimit>;
  for (const [name, declared] of Object.entries(body)) {
    const limit = groupLimitFromJson(declared);
    const problem = groupDeclarationProblem(name, limit);
    if (problem) throw new Error(`${source}: group "${name}": ${problem}.`);
    groups[name] = limit;
  }
  return groups;
}

/** The platform's groups of the LATCHKEY_GROUPS file (none without one): a server's and `org limits`'. */
export function loadGroupsFile(config: Pick<Config, "groupsFile">): Record<string, GroupLimit> {
  return config.groupsFile ? loadSettingFile("LATCHKEY_GROUPS", config.groupsFile, parseGroupsFile) : {};
}
