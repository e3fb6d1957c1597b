import { Ajv } from "ajv";

/**
 * The two ways input is checked, and the one Ajv instance of each (compiled schemas are cached per
 * instance, so sharing them compiles each schema once):
 *
 * - `json`: a JSON body, MCP tool arguments, a service's input. They must be exact: no type coercion
 *   (`"disabled": "true"` is not a boolean) and no silently dropped members (a client sending
 *   `enabled` must learn the field is `disabled`); defaults are filled in (no body schema has any).
 * - `text`: query strings, path parameters and environment variables, text by nature: coerced
 *   (`count=10`, `PORT=8080`), a single `with_permission` becomes a one-element array, defaults filled in.
 *
 * Both keep each failing value and its schema on the error (`verbose`), so that `issues.ts` can say
 * what was expected in words; that costs nothing until something fails.
 */
export type InputKind = "json" | "text";

const shared = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false, verbose: true };

const instances: Record<InputKind, Ajv> = {
  json: new Ajv({ ...shared, coerceTypes: false }),
  text: new Ajv({ ...shared, coerceTypes: "array" }),
};

/** The shared Ajv instance for input of this kind. */
export function ajvFor(kind: InputKind): Ajv {
  return instances[kind];
}
