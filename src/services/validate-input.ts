import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { Static, TSchema } from "typebox";
import { LatchkeyError, type ValidationIssue } from "../domain/errors.js";

/**
 * Validates input that reached a service from any adapter against its TypeBox schema, with the REST
 * body rules: no coercion, no dropped members, defaults filled in. REST has already checked the same
 * schema (so its errors come from Fastify); MCP tool arguments and programmatic callers are checked here.
 */
const ajv = new Ajv({
  allErrors: true,
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: true,
  strict: false,
});
const compiled = new WeakMap<object, ValidateFunction>();

function describe(issue: ErrorObject): ValidationIssue {
  const params = issue.params as Record<string, unknown>;
  if (issue.keyword === "additionalProperties") {
    const member = String(params.additionalProperty);
    const hint = member === "enabled" ? ' (the request field is "disabled", its inverse)' : "";
    return { path: `${issue.instancePath}/${member}`, message: `is not a known field${hint}` };
  }
  if (issue.keyword === "required") {
    return { path: `${issue.instancePath}/${String(params.missingProperty)}`, message: "is required" };
  }
  return { path: issue.instancePath || "/", message: issue.message ?? "is invalid" };
}

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
  const issues = (validate.errors ?? []).map(describe);
  const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
  throw new LatchkeyError("invalid_request", `Invalid request: ${summary}.`, { validationErrors: issues });
}
