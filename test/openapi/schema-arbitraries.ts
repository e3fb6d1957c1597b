import fc from "fast-check";

/** The part of JSON Schema the OpenAPI document uses. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  /** The value the server uses when the member is left out. */
  default?: unknown;
  pattern?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  examples?: unknown[];
}

/** A body sent as this exact text, not as `JSON.stringify` of a value. */
export class RawText {
  constructor(readonly text: string) {}
}

/** Resolves `#/components/schemas/...` references against the document. */
export type Resolve = (schema: Schema) => Schema;

export function resolver(components: Record<string, Schema>): Resolve {
  return (schema) => {
    if (schema.$ref === undefined) return schema;
    const name = schema.$ref.replace("#/components/schemas/", "");
    const target = components[name];
    if (target === undefined) throw new Error(`unknown schema ${schema.$ref}`);
    return target;
  };
}

/** Strings that mean something somewhere: the catalogue's names beside the schema's own examples. */
export interface Vocabulary {
  words: string[];
}

/** Any JSON value, small: what a client might send where something else was expected. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Strings that have broken servers: NUL, lone surrogates, odd white space, long, prototype names. */
export const oddStrings = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfffy",
    "\u202e",
    "\ufeff",
    "__proto__",
    "constructor",
    "%00",
    "../..",
    "null",
    "true",
    "0",
    "-1",
    "1e309",
    "😀",
  ),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.nat({ max: 3000 }).map((n) => "x".repeat(n)),
);

function stringArbitrary(schema: Schema, vocabulary: Vocabulary): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...(schema.enum as string[]));
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  const free = fc.string({ minLength, maxLength }).filter((s) => minLength === 0 || s.trim() !== "");
  if (!schema.examples) return free;
  const words = [...(schema.examples as string[]), ...vocabulary.words];
  // The schema's own examples also on their own: a value only they can show (an IP address) is valid
  // often enough for every operation to be answered 2xx sometimes.
  return fc.oneof(
    { arbitrary: fc.constantFrom(...(schema.examples as string[])), weight: 2 },
    { arbitrary: fc.constantFrom(...words), weight: 3 },
    { arbitrary: free, weight: 1 },
  );
}

/** Values that satisfy `schema` (as far as its keywords say). */
export function validValue(schema: Schema, resolve: Resolve, vocabulary: Vocabulary): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => validValue(a, resolve, vocabulary)));
  if (s.enum) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.type)) {
    return fc.oneof(...s.type.map((type) => validValue({ ...s, type }, resolve, vocabulary)));
  }
  // A free-form array or map (allowed_cidrs, metadata) is valid only in ways its keywords cannot say
  // (CIDRs, member names): its examples, checked by the lint, are what a valid request sends.
  if ((s.type === "array" || (s.type === "object" && !s.properties)) && s.examples) {
    return fc.constantFrom(...s.examples);
  }
  switch (s.type) {
    case "string":
      return stringArbitrary(s, vocabulary);
    case "integer":
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1_000_000 });
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(validValue(s.items ?? {}, resolve, vocabulary), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 5, 5),
      });
    case "object": {
      if (!s.properties) return fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 5 });
      const shape = Object.fromEntries(
        Object.entries(s.properties).map(([name, property]) => [
          name,
          validValue(property, resolve, vocabulary),
        ]),
      );
      return fc.record(shape, { requiredKeys: s.required ?? [] });
    }
    default:
      return anyJson;
  }
}

/** A value of the wrong JSON type for `schema`. */
function wrongType(schema: Schema): fc.Arbitrary<unknown> {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const candidates: [string, fc.Arbitrary<unknown>][] = [
    ["string", oddStrings],
    ["integer", fc.integer()],
    ["number", fc.double()],
    ["boolean", fc.boolean()],
    ["null", fc.constant(null)],
    ["array", fc.array(anyJson, { maxLength: 3 })],
    ["object", fc.dictionary(fc.string({ maxLength: 5 }), anyJson, { maxKeys: 3 })],
  ];
  const wrong = candidates.filter(
    ([type]) => !types.includes(type) && !(type === "number" && types.includes("integer")),
  );
  return fc.oneof(...wrong.map(([, arbitrary]) => arbitrary));
}

/** A value just outside what `schema` allows: too long, out of range, not an integer, not a name. */
function outOfBounds(schema: Schema): fc.Arbitrary<unknown> {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("string") && schema.maxLength !== undefined) {
    const max = schema.maxLength;
    return fc.oneof(
      fc.integer({ min: max + 1, max: max + 50 }).map((n) => "é".repeat(n)),
      oddStrings,
    );
  }
  if (types.includes("integer")) {
    return fc.oneof(
      fc.constantFrom(0, -1, 1.5, 1e300, -0, Number.MAX_SAFE_INTEGER + 2),
      fc.integer({ min: (schema.maximum ?? 0) + 1 }),
    );
  }
  return fc.oneof(oddStrings, anyJson);
}

/**
 * Values that break `schema` in one place: the wrong type, an unknown or dangerous member, a required
 * member left out, one member of the wrong type or out of bounds.
 */
export function invalidValue(
  schema: Schema,
  resolve: Resolve,
  vocabulary: Vocabulary,
): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const whole = fc.oneof(wrongType(s), outOfBounds(s));
  if (s.type !== "object" || !s.properties) return whole;
  const valid = validValue(s, resolve, vocabulary) as fc.Arbitrary<Record<string, unknown>>;
  const names = Object.keys(s.properties);
  const withMember = (
    member: fc.Arbitrary<string>,
    value: (name: string) => fc.Arbitrary<unknown>,
  ): fc.Arbitrary<Record<string, unknown>> =>
    fc
      .tuple(valid, member)
      .chain(([record, name]) =>
        value(name).map((v) => JSON.parse(JSON.stringify({ ...record, [name]: v }))),
      );
  const property = (name: string): Schema => resolve(s.properties?.[name] ?? {});
  return fc.oneof(
    whole,
    withMember(fc.constantFrom("enabled", "id", "extra", "constructor", "prototype"), () => anyJson),
    // `__proto__` as a JSON member, which an object spread would swallow.
    valid.map((record) => {
      const members = JSON.stringify(record).slice(1, -1);
      return new RawText(`{${members}${members ? "," : ""}"__proto__":{"x":1}}`);
    }),
    withMember(fc.constantFrom(...names), (name) => wrongType(property(name))),
    withMember(fc.constantFrom(...names), (name) => outOfBounds(property(name))),
    valid.chain((record) =>
      fc.constantFrom(...(s.required ?? names)).map((name) => {
        const copy = { ...record };
        delete copy[name];
        return copy;
      }),
    ),
  );
}
