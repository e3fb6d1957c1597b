import { Ajv } from "ajv";
import type { FastifySchemaCompiler } from "fastify";

/**
 * Two validators, because the parts of a request differ. Bodies are JSON and must be exact: no type
 * coercion (`"disabled": "true"` is not a boolean) and no silently dropped members (a client sending
 * `enabled` must learn the field is `disabled`). Query strings and path parameters are text by nature,
 * so they are coerced (`count=10`) and a single `with_permission` becomes a one-element array.
 */
const strictBodies = new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, strict: false });
const textParts = new Ajv({
  allErrors: true,
  coerceTypes: "array",
  useDefaults: true,
  removeAdditional: false,
  strict: false,
});

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === "body" ? strictBodies : textParts).compile(schema as object);

/** The validator Fastify uses for a route's `body` schema, for a body read in front of Fastify. */
export const bodyValidator = (schema: object) => strictBodies.compile(schema);
