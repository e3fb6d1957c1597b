import { randomBytes } from "node:crypto";
import type { Clock } from "../domain/clock.js";
import type { SecretHandoffStore } from "../store/kysely-secret-handoffs.js";
import { createResponseSealer } from "./response-sealer.js";

/**
 * How long a secret waits for its page: the browser asks for it at once (the redirect of the POST);
 * a page never opened leaves nothing behind for longer.
 */
export const HANDOFF_MS = 10 * 60_000;

/** What the page after a create or a roll shows once. */
export interface HandedSecret {
  /** The key's or webhook endpoint's id: a page shows only a secret handed for its own record. */
  recordId: string;
  secret: string;
  /** After a roll: until when the previous secret works (epoch ms). */
  previousSecretExpiresAt?: number;
}

/** The session a secret is handed to: its stored hash, and the key only its cookie gives. */
export interface HandoffSession {
  tokenHash: string;
  handoffKey: Buffer;
}

/**
 * The console's POST-redirect-GET for a secret shown once (docs/console.md): the POST that creates or
 * rolls a key, or creates a webhook endpoint or rotates its secret, hands the secret over and redirects; the GET takes it, so a reload or a second tab finds
 * nothing. Stored sealed (AES-256-GCM) under a key derived from the session's cookie, which the
 * database does not hold (only its SHA-256): a copy of the database opens none of them.
 */
export interface SecretHandoffs {
  /** Seals `secret` for `session`; the returned id goes in the redirect. */
  hand(session: HandoffSession, secret: HandedSecret): Promise<string>;
  /** The secret of `id` for `session`, once; undefined when taken, stale or another session's. */
  take(session: HandoffSession, id: string): Promise<HandedSecret | undefined>;
}

const ID = /^[A-Za-z0-9_-]{22}$/;

export function createSecretHandoffs(store: SecretHandoffStore, clock: Clock): SecretHandoffs {
  const sealerOf = (session: HandoffSession) =>
    createResponseSealer(session.handoffKey, "console-secret-handoffs-v1");
  return {
    async hand(session, secret) {
      const id = randomBytes(16).toString("base64url");
      const now = clock.now();
      const sealed = sealerOf(session).seal(JSON.stringify(secret), id);
      await store.put({ id, sessionHash: session.tokenHash, sealed, createdAt: now }, now - HANDOFF_MS);
      return id;
    },
    async take(session, id) {
      if (!ID.test(id)) return undefined;
      const sealed = await store.take(id, session.tokenHash, clock.now() - HANDOFF_MS);
      if (sealed === undefined) return undefined;
      return JSON.parse(sealerOf(session).open(sealed, id)) as HandedSecret;
    },
  };
}
