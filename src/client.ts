/**
 * `latchkey/client`, kept for programs written before the client became its own package: the same
 * exports as `@latchkey/client` (packages/client), which new code should install and import instead.
 */
export * from "@latchkey/client";
