/**
 * `latchkey/guard`, kept for programs written before the guard moved into its own package: the same
 * exports as `@latchkey/client/guard` (packages/client), which new code should install and import instead.
 */
export * from "@latchkey/client/guard";
