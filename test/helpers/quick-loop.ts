import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Whether this file runs in the quick loop, `npm run test:unit` (vitest.config.ts). */
    quickLoop: boolean;
  }
}

/**
 * Stops a file of the quick loop that needs what only the integration project has (a service, the
 * build, a process of its own): it fails at once, naming the list to put it in, instead of being
 * skipped or slowing the quick loop down.
 */
export function assertOutsideQuickLoop(what: string): void {
  if (inject("quickLoop")) {
    throw new Error(
      `${what} is not for the quick loop (npm run test:unit): list this file in INTEGRATION in vitest.config.ts`,
    );
  }
}
