import { Type } from "typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "../domain/idempotency.js";
import type { IdempotentCreates, RecordResponse } from "../services/idempotency.js";
import { callerOf } from "./management-guard.js";

/** The `Idempotency-Key` request header of the create routes, validated (400) and documented here. */
export const IdempotencyKeyHeaders = Type.Object({
  [IDEMPOTENCY_KEY_HEADER]: Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        "1 to 255 printable ASCII characters, e.g. a random UUID. A repeat of the same request with the same " +
        "key within 24 hours returns the first response and creates nothing; the same key with another body is " +
        "409 idempotency_key_reused; a repeat while the first still runs is 409 idempotency_key_in_use.",
      examples: ["5f0c2e9a-3b7d-4c1e-9a8f-2d6b4e1c7a90"],
    }),
  ),
});

/** Marks a replayed response, as Stripe does, so that a client can tell it from a new create. */
const REPLAYED_HEADER = "Idempotent-Replayed";
/**
 * Marks a replay whose secret this server could not keep (PostgreSQL without LATCHKEY_SECRET_PEPPER or
 * LATCHKEY_SERVER_KEY_FILE): the record is the first one, its secret members empty.
 */
const SECRET_WITHHELD_HEADER = "Idempotent-Secret-Withheld";

/**
 * Answers a create once per `Idempotency-Key` (services/idempotency.ts): `create` gets the function that
 * records its first response in its own transaction. `secret`: the response holds a new secret.
 * The keys are the calling key's own, not its organization's: another key sending the same
 * `Idempotency-Key` makes a new request (its own authority checked), and a kept answer holding a
 * secret goes only to the key that made it.
 */
export function idempotentCreate<T>(
  idempotency: IdempotentCreates,
  request: FastifyRequest,
  reply: FastifyReply,
  secret: boolean,
  create: (record?: RecordResponse<T>) => Promise<T>,
): Promise<T> {
  const caller = callerOf(request);
  return runIdempotentCreate(idempotency, request, reply, `${caller.orgId} ${caller.id}`, secret, create);
}

/** `idempotentCreate` with the scope its keys live in named: an organization, or a service token. */
export async function runIdempotentCreate<T>(
  idempotency: IdempotentCreates,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: string,
  secret: boolean,
  create: (record?: RecordResponse<T>) => Promise<T>,
): Promise<T> {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  const { response, replayed, secretWithheld } = await idempotency.run<T>(
    {
      orgId: scope,
      key: typeof header === "string" ? header : undefined,
      // The path as sent, not the route's pattern: rotating another endpoint (or granting credits to
      // another organization) with the same key is another request, never the first one's answer.
      route: `${request.method} ${request.url}`,
      body: request.body,
      secret,
    },
    create,
  );
  if (replayed) reply.header(REPLAYED_HEADER, "true");
  if (secretWithheld) reply.header(SECRET_WITHHELD_HEADER, "true");
  return response;
}
