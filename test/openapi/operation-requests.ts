import fc from "fast-check";
import {
  anyJson,
  invalidValue,
  oddStrings,
  RawText,
  type Resolve,
  resolver,
  type Schema,
  validValue,
  type Vocabulary,
} from "./schema-arbitraries.js";

/** One operation of the OpenAPI document. */
export interface Operation {
  operationId: string;
  method: string;
  /** The templated path, e.g. `/v1/proxies/{id}`. */
  path: string;
  parameters: {
    in: string;
    name: string;
    required?: boolean;
    style?: string;
    schema: Schema;
    example?: unknown;
    /** The parameter's examples by name (where a schema's `examples` end up in a query parameter). */
    examples?: Record<string, { value?: unknown }>;
  }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  /** The documented statuses, e.g. `["200", "400", "401"]`. */
  statuses: string[];
  /** Whether it takes the service token instead of a key. */
  serviceToken: boolean;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Omit<Operation, "method" | "path" | "statuses" | "serviceToken">>>;
  components: { schemas: Record<string, Schema> };
}

/** Every operation of the document, with a resolver for its schemas. */
export function operationsOf(document: unknown): { operations: Operation[]; resolve: Resolve } {
  const doc = document as OpenApiDocument & {
    paths: Record<string, Record<string, { responses: object; security?: Record<string, unknown>[] }>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      ...(operation as unknown as Operation),
      parameters: (operation as unknown as Operation).parameters ?? [],
      method: method.toUpperCase(),
      path,
      statuses: Object.keys(operation.responses),
      serviceToken: (operation.security ?? []).some((scheme) => "serviceToken" in scheme),
    })),
  );
  return { operations, resolve: resolver(doc.components.schemas) };
}

/** What a generated request needs from the app it is sent to: real credentials and ids. */
export interface FuzzContext {
  /** The owner key's `Authorization` (all future permissions). */
  owner: { authorization: string; apiId: string };
  /** A key of the same organization holding only images:read. */
  limited: string;
  serviceToken: string;
  /**
   * Existing record ids by prefix (`key`, `prx`, `dst`, `ogc`, `org`, `stk`, `whe`, `msg`); where the
   * platform's records of a prefix are not the organization's, the admin routes' under `<prefix>:admin`.
   */
  ids: Record<string, string[]>;
}

/** A request ready for `app.inject`. */
export interface FuzzRequest {
  operationId: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

type Authorization =
  { kind: "owner" | "limited" | "none" | "wrong-secret" } | { kind: "header"; value: string };

type Id =
  { kind: "existing"; prefix: string | undefined; index: number } | { kind: "literal"; value: string };

/** A request described independently of any app; `materialize` fills in the app's credentials and ids. */
export interface RequestPlan {
  operation: Operation;
  authorization: Authorization;
  serviceToken: "valid" | "none" | (string & {});
  id: Id | undefined;
  /** `[name, value]` pairs, already encoded for the query string. */
  query: [string, string][];
  contentType: string | undefined;
  body: { kind: "none" } | { kind: "value"; value: unknown } | { kind: "raw"; payload: string | Buffer };
  /** For authorize: the body's `authorization` replaced by the owner's. */
  ownerInBody: boolean;
  /** Values of the path parameters after the first (the id), e.g. a group name. */
  morePath: string[];
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString("base64");

const oddAuthorization: fc.Arbitrary<Authorization> = fc.oneof(
  fc
    .constantFrom(
      "Bearer x",
      "Basic",
      "Basic ",
      "Basic !!!",
      `Basic ${b64("nocolon")}`,
      `Basic ${b64(":")}`,
      `Basic ${b64("lkid_x:lksk_y")}`,
      `Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0xc3]))}`,
      `Basic ${b64("lkid_0000000000000000000000:lksk_0")}`,
      "basic",
      "Digest username=x",
      `Basic ${"A".repeat(9000)}`,
      "Basic \u00e9\u00e9",
    )
    .map((value) => ({ kind: "header" as const, value })),
  fc.constant({ kind: "wrong-secret" as const }),
);

const authorization: fc.Arbitrary<Authorization> = fc.oneof(
  { arbitrary: fc.constant({ kind: "owner" as const }), weight: 14 },
  { arbitrary: fc.constant({ kind: "limited" as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: "none" as const }), weight: 1 },
  { arbitrary: oddAuthorization, weight: 3 },
);

const contentTypes = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      undefined,
      "text/plain",
      "application/x-www-form-urlencoded",
      "APPLICATION/JSON",
      "application/json; charset=iso-8859-1",
      "application/vnd.api+json",
      "multipart/form-data; boundary=x",
      "application/json;",
      "",
    ),
    weight: 4,
  },
);

/** Bodies that are not what any schema describes: broken JSON, odd encodings, too big, too deep. */
const rawBodies: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    "",
    "{",
    '{"name":',
    "nul",
    "[1,2",
    '"a string"',
    '{"a":1}x',
    '{"name":"a","name":"b","permissions":[]}',
    "\ufeff{}",
    "{}",
    "[]",
    "null",
    "0",
    '{"constructor":{"prototype":{"x":1}}}',
  ),
  fc.constant(Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
  fc.constant(Buffer.from('{"name":"\xe9t\xe9","permissions":[]}', "latin1")),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
  fc.integer({ min: 60_000, max: 80_000 }).map((size) => JSON.stringify({ name: "x".repeat(size) })),
  fc.string({ unit: "binary", maxLength: 60 }),
);

/** Characters that break naive query parsers, sent raw. */
const rawQueryValues = fc.constantFrom("%", "%zz", "%00", "%E9", "%C3%A9", "+", "a%2Cb", "%FF%FE", "\u00e9");

function queryValue(schema: Schema, resolve: Resolve, vocabulary: Vocabulary): fc.Arbitrary<string[]> {
  const s = resolve(schema);
  const encode = (value: unknown) => encodeURIComponent(String(value));
  const valid =
    s.type === "array"
      ? fc
          .array(validValue(s.items ?? {}, resolve, vocabulary), { maxLength: 3 })
          .map((values) => values.map(encode))
      : validValue(s, resolve, vocabulary).map((value) => [encode(value)]);
  const odd = fc.oneof(
    fc.constantFrom(
      "0",
      "101",
      "1.5",
      "-1",
      "1e2",
      " 5",
      "yes",
      "TRUE",
      "",
      "[]",
      "images:create,usage:read",
    ),
    oddStrings.map((value) => value.replace(/[\ud800-\udfff]/g, "x")),
  );
  return fc.oneof(
    { arbitrary: valid, weight: 4 },
    { arbitrary: odd.map((value) => [encodeURIComponent(value)]), weight: 2 },
    { arbitrary: rawQueryValues.map((value) => [value]), weight: 1 },
    { arbitrary: fc.array(odd.map(encodeURIComponent), { minLength: 2, maxLength: 3 }), weight: 1 },
  );
}

const noSurrogates = oddStrings.map((value) => value.replace(/[\ud800-\udfff]/g, "x"));

/** `name[member]=value` pairs of a `deepObject` parameter (the list's metadata filters). */
function deepObjectPairs(
  name: string,
  schema: Schema,
  resolve: Resolve,
  vocabulary: Vocabulary,
): fc.Arbitrary<[string, string][]> {
  const members = fc.oneof(
    validValue(schema, resolve, vocabulary),
    // Lone surrogates cannot be percent-encoded (queryValue replaces them the same way).
    fc.dictionary(noSurrogates, noSurrogates, { maxKeys: 3 }),
  ) as fc.Arbitrary<Record<string, unknown>>;
  return members.map((object) =>
    Object.entries(object).map(([member, value]): [string, string] => [
      `${name}[${member}]`,
      encodeURIComponent(String(value)),
    ]),
  );
}

/**
 * A parameter's documented examples, often: a value only they can show (a time on the hour, two
 * times a month apart) makes its operation answer 2xx sometimes.
 */
function withExamples(
  examples: Record<string, { value?: unknown }> | undefined,
  values: fc.Arbitrary<string[]>,
): fc.Arbitrary<string[]> {
  const shown = Object.values(examples ?? {}).map((example) => encodeURIComponent(String(example.value)));
  if (shown.length === 0) return values;
  return fc.oneof({ arbitrary: fc.constantFrom(...shown).map((value) => [value]), weight: 6 }, values);
}

function queryArbitrary(
  operation: Operation,
  resolve: Resolve,
  vocabulary: Vocabulary,
): fc.Arbitrary<[string, string][]> {
  const params = operation.parameters.filter((p) => p.in === "query");
  const each = params.map((param) =>
    fc.option(
      param.style === "deepObject"
        ? deepObjectPairs(param.name, param.schema, resolve, vocabulary)
        : withExamples(param.examples, queryValue(param.schema, resolve, vocabulary)).map((values) =>
            values.map((v): [string, string] => [param.name, v]),
          ),
      // A parameter the request cannot do without (not one with a default) is left out one time in
      // eight, not every other time: two such (an export's range) would leave 2xx answers too rare.
      { freq: param.required && resolve(param.schema).default === undefined ? 8 : 2 },
    ),
  );
  const extra = fc.option(
    fc.tuple(
      fc.constantFrom("foo", "__proto__", "count[]", "", "include_disabled"),
      fc.string({ maxLength: 8 }),
    ),
    // Left out every other time (`freq` is one over the chance of leaving it out): present seven times
    // in eight, it made an operation with required parameters hardly ever valid.
    { freq: 2 },
  );
  return fc
    .tuple(fc.tuple(...each), extra)
    .map(([values, unknown]) => [
      ...values.flatMap((v) => v ?? []),
      ...(unknown ? [[unknown[0], encodeURIComponent(unknown[1])] as [string, string]] : []),
    ]);
}

function idArbitrary(operation: Operation, resolve: Resolve): fc.Arbitrary<Id> | undefined {
  const param = operation.parameters.find((p) => p.in === "path");
  if (!param) return undefined;
  const schema = resolve(param.schema);
  const prefix = /^\^([a-z]+)_/.exec(schema.pattern ?? "")?.[1];
  const literal = (value: fc.Arbitrary<string>) => value.map((v): Id => ({ kind: "literal", value: v }));
  return fc.oneof(
    { arbitrary: fc.nat({ max: 3 }).map((index): Id => ({ kind: "existing", prefix, index })), weight: 4 },
    {
      arbitrary: literal(
        validValue(schema, resolve, { words: [] }).map((v) => encodeURIComponent(String(v))),
      ),
      weight: 3,
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom("key", "prx", "dst", "ogc", "org", "stk"), fc.nat({ max: 3 }))
        .map(([other, index]): Id => ({ kind: "existing", prefix: other, index })),
      weight: 1,
    },
    {
      arbitrary: literal(
        fc.oneof(
          oddStrings.map((value) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, "x"))),
          fc.constantFrom(
            "aws-external-id",
            `${prefix}_`,
            `${prefix}_${"a".repeat(23)}`,
            "%2F",
            "..",
            "%zz",
            "a%00",
          ),
        ),
      ),
      weight: 2,
    },
  );
}

/** Plans for requests to `operation`: mostly well-formed and authenticated, often broken in one place. */
export function requestPlans(
  operation: Operation,
  resolve: Resolve,
  vocabulary: Vocabulary,
): fc.Arbitrary<RequestPlan> {
  const schema = operation.requestBody?.content["application/json"]?.schema;
  const body: fc.Arbitrary<RequestPlan["body"]> = schema
    ? fc.oneof(
        {
          arbitrary: validValue(schema, resolve, vocabulary).map((value) => ({
            kind: "value" as const,
            value,
          })),
          weight: 10,
        },
        {
          arbitrary: invalidValue(schema, resolve, vocabulary).map((value) => ({
            kind: "value" as const,
            value,
          })),
          weight: 6,
        },
        { arbitrary: anyJson.map((value) => ({ kind: "value" as const, value })), weight: 1 },
        { arbitrary: rawBodies.map((payload) => ({ kind: "raw" as const, payload })), weight: 3 },
      )
    : fc.oneof(
        { arbitrary: fc.constant({ kind: "none" as const }), weight: 12 },
        { arbitrary: rawBodies.map((payload) => ({ kind: "raw" as const, payload })), weight: 1 },
      );
  return fc.record({
    operation: fc.constant(operation),
    authorization,
    serviceToken: fc.oneof(
      { arbitrary: fc.constant("valid"), weight: 8 },
      { arbitrary: fc.constantFrom("none", "lkst_nope", "", "Basic x"), weight: 2 },
    ),
    id: idArbitrary(operation, resolve) ?? fc.constant(undefined),
    query: queryArbitrary(operation, resolve, vocabulary),
    contentType: schema ? contentTypes : fc.option(contentTypes, { freq: 2 }).map((c) => c ?? undefined),
    body,
    ownerInBody: fc.boolean(),
    morePath: fc.tuple(
      ...operation.parameters
        .filter((p) => p.in === "path")
        .slice(1)
        .map((p) => {
          const valid = validValue(resolve(p.schema), resolve, vocabulary);
          // A name the deployment knows, as the example shows, most of the time: any string is schema-valid.
          const values =
            p.example === undefined
              ? valid
              : fc.oneof({ arbitrary: fc.constant(p.example), weight: 3 }, valid);
          return values.map((v) => encodeURIComponent(String(v)));
        }),
    ),
  });
}

function authorizationHeader(plan: Authorization, context: FuzzContext): string | undefined {
  switch (plan.kind) {
    case "owner":
      return context.owner.authorization;
    case "limited":
      return context.limited;
    case "none":
      return undefined;
    case "wrong-secret":
      return `Basic ${b64(`${context.owner.apiId}:lksk_${"0".repeat(40)}`)}`;
    case "header":
      return plan.value;
  }
}

/** The records of a prefix that the operation's caller (the organization or the platform) owns. */
function existingIds(context: FuzzContext, prefix: string, path: string): string[] {
  const platform = path.startsWith("/v1/admin/") ? context.ids[`${prefix}:admin`] : undefined;
  return platform ?? context.ids[prefix] ?? [];
}

/** The request a plan describes, against one app's credentials and records. */
export function materialize(plan: RequestPlan, context: FuzzContext): FuzzRequest {
  const { operation } = plan;
  let path = operation.path;
  if (plan.id) {
    const id =
      plan.id.kind === "literal"
        ? plan.id.value
        : (existingIds(context, plan.id.prefix ?? "", operation.path)[plan.id.index] ??
          `${plan.id.prefix}_missing`);
    path = path.replace(/\{[^}]+\}/, id);
  }
  for (const value of plan.morePath) path = path.replace(/\{[^}]+\}/, value);
  const query = plan.query.map(([name, value]) => `${encodeURIComponent(name)}=${value}`).join("&");
  const headers: Record<string, string> = {};
  const auth = authorizationHeader(plan.authorization, context);
  if (operation.serviceToken) {
    if (plan.serviceToken === "valid") headers["x-latchkey-service-token"] = context.serviceToken;
    else if (plan.serviceToken !== "none") headers["x-latchkey-service-token"] = plan.serviceToken;
  } else if (auth !== undefined) headers.authorization = auth;
  if (plan.contentType !== undefined) headers["content-type"] = plan.contentType;
  let payload: string | Buffer | undefined;
  if (plan.body.kind === "raw") payload = plan.body.payload;
  if (plan.body.kind === "value") {
    let value = plan.body.value;
    if (value instanceof RawText) payload = value.text;
    else {
      // The relayed credentials of authorize, the one service-token operation whose body carries them.
      const relays = operation.operationId === "authorize";
      if (relays && plan.ownerInBody && typeof value === "object" && value !== null) {
        value = { ...value, authorization: auth ?? null };
      }
      payload = JSON.stringify(value);
    }
  }
  return {
    operationId: operation.operationId,
    method: operation.method,
    url: query ? `${path}?${query}` : path,
    headers,
    ...(payload === undefined ? {} : { payload }),
  };
}
