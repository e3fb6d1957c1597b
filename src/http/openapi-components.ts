import { isDeepStrictEqual } from "node:util";

type Schema = Record<string, unknown>;
type Document = {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
  tags?: { name: string; description?: string }[];
};
type Operation = {
  tags?: string[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

/** Members that may differ between two uses of one named schema (they move to the media object). */
const PER_USE = new Set(["description", "examples", "example"]);

function withoutPerUse(schema: Schema): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !PER_USE.has(key)));
}

/**
 * @fastify/swagger turns named schemas (those with an `$id`, see `named()` in schemas.ts) into
 * components when they are nested, but inlines a named schema that is a whole body or response. This
 * finishes the job: such a schema becomes `#/components/schemas/<title>` too, and every tag an operation
 * uses is declared. Two different schemas under one name are a mistake, reported here.
 */
export function hoistNamedSchemas<T>(document: T): T {
  const doc = document as Document;
  const components = (doc.components ??= {});
  const schemas = (components.schemas ??= {});
  const tags = (doc.tags ??= []);

  const hoist = (holder: { schema?: Schema }) => {
    const schema = holder.schema;
    const name = schema?.title;
    if (!schema || typeof name !== "string") return;
    const known = schemas[name];
    if (!known) schemas[name] = schema;
    else if (!isDeepStrictEqual(withoutPerUse(known), withoutPerUse(schema))) {
      throw new Error(`Two different schemas are named ${name}: give one another name.`);
    }
    holder.schema = { $ref: `#/components/schemas/${name}` };
  };

  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item) as Operation[]) {
      if (typeof operation !== "object" || !operation.responses) continue;
      for (const media of Object.values(operation.requestBody?.content ?? {})) hoist(media);
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values(response.content ?? {})) hoist(media);
      }
      for (const tag of operation.tags ?? []) {
        if (!tags.some((declared) => declared.name === tag)) tags.push({ name: tag });
      }
    }
  }
  return document;
}
