import type { FastifySchemaCompiler } from "fastify";
import { ajvFor } from "../validation/ajv.js";

/**
 * Bodies are JSON and checked exactly; query strings and path parameters are text, coerced
 * (src/validation/ajv.ts says why).
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  ajvFor(httpPart === "body" ? "json" : "text").compile(schema as object);
