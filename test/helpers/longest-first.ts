import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that took longest in a full run (`npx vitest run --reporter=json`, on 2 cores), longest
 * first. Three run at a time, so a long file that starts last is a tail the others cannot share: these
 * start first, whichever project they belong to, and the many short files fill in at the end. A file
 * missing here only runs in Vitest's own order; renaming one only loses its place.
 */
const LONGEST = [
  "test/http/resource-families.test.ts",
  "test/process/platform-cli.test.ts",
  "test/http/resource-security-cases.test.ts",
  "test/openapi/openapi-fuzz.test.ts",
  "test/process/credit-crash.test.ts",
  "test/http/resource-quota-postgres.test.ts",
  "test/http/idempotency.test.ts",
  "test/http/resource-error-table.test.ts",
  "test/process/first-start.test.ts",
  "test/cli/user-commands.test.ts",
  "test/http/authorize.test.ts",
  "test/store/key-store.contract.test.ts",
  "test/process/roll-overlap.test.ts",
  "test/mcp/shared-allowance.test.ts",
  "test/docs/recipes.test.ts",
  "test/http/admin-organizations.test.ts",
];

/** Vitest's order (by the last run's durations when it has them, else by size), the longest files first. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at === -1 ? LONGEST.length : at;
    };
    return sorted
      .map((spec, index) => ({ spec, index, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
