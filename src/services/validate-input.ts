import type { ValidateFunction } from "ajv";
import type { Static, TSchema } from "typebox";
import { ajvFor } from "../validation/ajv.js";
import { invalidRequestFromSchema } from "../validation/issues.js";

/**
 * Validates input that reached a service from any adapter against its TypeBox schema, with the REST
 * body rules (`json` in src/validation/ajv.ts: no coercion, no dropped members, defaults filled in).
 * REST has already checked the same schema (so its errors come from Fastify); MCP tool arguments and
 * programmatic callers are checked here, and told the same messages (src/validation/issues.ts).
 */
const ajv = ajvFor("json");
const compiled = new WeakMap<object, ValidateFunction>();

/** Returns the input (with defaults applied) when it matches; throws 400 `invalid_request` otherwise. */
export function validateInput<S extends TSchema>(schema: S, input: unknown): Static<S> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema as object);
    compiled.set(schema, validate);
  }
  // A copy, so that filling in defaults never changes the caller's object.
  const value: unknown =
    typeof input === "object" && input !== null && !Array.isArray(input) ? { ...input } : input;
  if (validate(value)) return value as Static<S>;
  throw invalidRequestFromSchema(validate.errors ?? []);
}
