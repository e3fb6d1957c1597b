import type { ErrorObject } from "ajv";
import { API_ID_PREFIX, KEY_ID_PREFIX, SECRET_PREFIX } from "../domain/credentials.js";
import { LatchkeyError, type ValidationIssue } from "../domain/errors.js";
import { RESOURCE_FAMILIES } from "../domain/resource-families.js";

/**
 * The one translator from Ajv's errors to what a person can act on, for REST, MCP, the services and
 * the configuration: what was expected, in words ("an integer from 1 to 100", "one of json, pretty",
 * "a key id (key_...)"), never a regular expression or "must match a schema in anyOf".
 */
export interface InputIssue extends ValidationIssue {
  /** What the value should be, when that can be said ("an integer from 1 to 100"); `message` says it too. */
  expected?: string;
  /** The value given, when there was one (never echoed to a client: it may be a secret). */
  value?: unknown;
}

/** Id prefixes and what a person calls them: the ids that can end up where another is expected. */
const ID_KINDS: readonly { prefix: string; name: string }[] = [
  { prefix: KEY_ID_PREFIX, name: "a key id" },
  { prefix: API_ID_PREFIX, name: "an api_id" },
  { prefix: SECRET_PREFIX, name: "a key's secret" },
  ...RESOURCE_FAMILIES.map((family) => ({ prefix: family.idPrefix, name: `a ${family.singular} id` })),
];

const ID_PATTERN = /^\^([a-z]+_)\[0-9A-Za-z\]\{\d+\}\$$/;

/** A pattern mismatch of an id: what the path expects, and what it got instead when that is known. */
function idExpectation(pattern: string, value: unknown): { expected: string; message: string } | undefined {
  const prefix = ID_PATTERN.exec(pattern)?.[1];
  const wanted = ID_KINDS.find((kind) => kind.prefix === prefix);
  if (!prefix || !wanted) return undefined;
  const expected = `${wanted.name} (${prefix}...)`;
  const text = typeof value === "string" ? value : "";
  if (text === "")
    return { expected, message: `is empty: expected ${expected} (a trailing slash leaves it empty)` };
  const other = ID_KINDS.find((kind) => kind.prefix !== prefix && text.startsWith(kind.prefix));
  const instead = other ? `, not ${other.name} (${other.prefix}...)` : "";
  return { expected, message: `must be ${expected}${instead}` };
}

/** "an integer from 1 to 100", "a number of at least 0", ... for a schema with bounds. */
function boundedNumber(schema: Record<string, unknown>): string | undefined {
  const noun = schema.type === "integer" ? "an integer" : schema.type === "number" ? "a number" : undefined;
  if (!noun) return undefined;
  const { minimum, maximum } = schema;
  if (typeof minimum === "number" && typeof maximum === "number")
    return `${noun} from ${minimum} to ${maximum}`;
  if (typeof minimum === "number") return `${noun} of at least ${minimum}`;
  if (typeof maximum === "number") return `${noun} of at most ${maximum}`;
  return noun;
}

/** The constants an `anyOf` of `const`s (a TypeBox union of literals) or an `enum` allows. */
function choices(schema: unknown): unknown[] | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const { anyOf, enum: values } = schema as { anyOf?: unknown; enum?: unknown };
  if (Array.isArray(values)) return values as unknown[];
  if (
    !Array.isArray(anyOf) ||
    !anyOf.every((branch) => branch && typeof branch === "object" && "const" in branch)
  ) {
    return undefined;
  }
  return anyOf.map((branch) => (branch as { const: unknown }).const);
}

function oneOf(values: unknown[]): string {
  return `one of ${values.map(String).join(", ")}`;
}

/** Where a schema came from: its path under the anyOf whose choices were already said. */
const under = (schemaPath: string, parent: string) => schemaPath.startsWith(`${parent}/`);

function describe(issue: ErrorObject, prefix: string, part: string | undefined): InputIssue {
  const params = issue.params as Record<string, unknown>;
  const at = `${prefix}${issue.instancePath}` || "/";
  const parent = (issue.parentSchema ?? {}) as Record<string, unknown>;
  const value: { value?: unknown } = issue.data === undefined ? {} : { value: issue.data };
  const expecting = (expected: string): InputIssue => ({
    path: at,
    message: `must be ${expected}`,
    expected,
    ...value,
  });
  switch (issue.keyword) {
    case "additionalProperties": {
      const member = String(params.additionalProperty);
      const hint = member === "enabled" ? ' (the request field is "disabled", its inverse)' : "";
      return { path: `${prefix}${issue.instancePath}/${member}`, message: `is not a known field${hint}` };
    }
    case "required":
      return {
        path: `${prefix}${issue.instancePath}/${String(params.missingProperty)}`,
        message: "is required",
      };
    case "type":
      if (issue.instancePath === "" && part === "body") return bodyType(issue.data);
      if (boundedNumber(parent)) return expecting(boundedNumber(parent) as string);
      if (Array.isArray(params.type)) return expecting(params.type.join(" or "));
      break;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      if (boundedNumber(parent)) return expecting(boundedNumber(parent) as string);
      break;
    case "pattern": {
      const id = idExpectation(String(params.pattern), issue.data);
      if (id) return { path: at, ...id, ...value };
      if (typeof parent.description === "string") return expecting(parent.description);
      break;
    }
    case "anyOf":
    case "enum": {
      const allowed = choices(parent);
      if (allowed) return expecting(oneOf(allowed));
      break;
    }
    case "minLength":
      return {
        path: at,
        message: `must be at least ${String(params.limit)} characters long`,
        expected: `at least ${String(params.limit)} characters`,
        ...value,
      };
  }
  return { path: at, message: issue.message ?? "is invalid", ...value };
}

/** The top-level body of a JSON request that is not an object. */
function bodyType(data: unknown): InputIssue {
  // Fastify gives a request without a body a null one, as it does a body of JSON `null`.
  if (data === undefined || data === null) {
    return { path: "/", message: "must be a JSON object: this request needs a body" };
  }
  const given = Array.isArray(data) ? "an array" : `a ${typeof data}`;
  return { path: "/", message: `must be a JSON object, not ${given}` };
}

/**
 * Ajv's errors as issues, one per problem: the errors inside an `anyOf` of constants (one "must be
 * equal to constant" per choice) become the one issue "must be one of ...".
 *
 * `part`: where the input was (`body`, `querystring`, `params`, `headers`); paths outside the body
 * start with it (`/query/count`, `/params/id`). Undefined for a service's or the configuration's input.
 */
export function describeIssues(errors: readonly ErrorObject[], part?: string): InputIssue[] {
  const prefix = part === undefined || part === "body" ? "" : `/${part === "querystring" ? "query" : part}`;
  const choiceSets = errors.filter((error) => error.keyword === "anyOf" && choices(error.parentSchema));
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword !== "anyOf" && choiceSets.some((set) => under(error.schemaPath, set.schemaPath)))
      continue;
    // Several bounds of one value say the same thing once translated ("an integer from 1 to 100").
    const issue = describe(error, prefix, part);
    const key = `${issue.path} ${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/** "count", "the id in the path", or a body path ("/permissions/0"): how a summary names an issue's value. */
function subject(path: string): string {
  const query = /^\/query\/([^/]+)$/.exec(path);
  if (query) return query[1] as string;
  const param = /^\/params\/([^/]+)$/.exec(path);
  if (param) return `the ${param[1] as string} in the path`;
  return path;
}

/**
 * The 400 `invalid_request` for input that failed its schema, from REST, MCP or a service, e.g.
 * "Invalid request: count must be an integer from 1 to 100." The values given are not repeated: one
 * may be a secret.
 */
export function invalidRequestFromSchema(errors: readonly ErrorObject[], part?: string): LatchkeyError {
  const issues = describeIssues(errors, part).map(({ path, message }) => ({ path, message }));
  const summary = issues.map((issue) => `${subject(issue.path)} ${issue.message}`).join("; ");
  return new LatchkeyError("invalid_request", `Invalid request: ${summary}.`, { validationErrors: issues });
}
