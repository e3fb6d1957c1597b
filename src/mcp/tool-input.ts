import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { TObject } from "typebox";
import { LatchkeyError, type ValidationIssue } from "../domain/errors.js";

/** Tool arguments are JSON, like REST bodies: exact types, no coercion, unknown members refused. */
const ajv = new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, strict: false });
const compiled = new WeakMap<TObject, ValidateFunction>();

function describe(issue: ErrorObject): ValidationIssue {
  const params = issue.params as Record<string, unknown>;
  if (issue.keyword === "additionalProperties") {
    return {
      path: `${issue.instancePath}/${String(params.additionalProperty)}`,
      message: "is not a known field",
    };
  }
  if (issue.keyword === "required") {
    return { path: `${issue.instancePath}/${String(params.missingProperty)}`, message: "is required" };
  }
  return { path: issue.instancePath || "/", message: issue.message ?? "is invalid" };
}

/** The arguments checked against the tool's schema, or the `invalid_request` error naming each problem. */
export function checkToolInput(schema: TObject, args: unknown): LatchkeyError | undefined {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  // Defaults are not applied: the services fill them, for REST and MCP alike.
  if (validate(args ?? {})) return undefined;
  const issues = (validate.errors ?? []).map(describe);
  const summary = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
  return new LatchkeyError("invalid_request", `Invalid arguments: ${summary}.`, { validationErrors: issues });
}
