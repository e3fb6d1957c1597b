import type { FastifySerializerCompiler } from "fastify";
import fastJsonStringify from "fast-json-stringify";

const built = new WeakMap<object, (data: unknown) => string>();

/**
 * Response serializers, built once per schema object rather than once per route and status: every
 * route answers its errors with the same few schemas, and building one is most of what a route's
 * registration costs (bench/start-time.mjs). The schemas are constants, never changed once built.
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const key = schema as object;
  let serialize = built.get(key);
  if (!serialize) {
    serialize = fastJsonStringify(key);
    built.set(key, serialize);
  }
  return serialize;
};
