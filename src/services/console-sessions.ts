import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../domain/clock.js";
import { invalidRequest, LatchkeyError } from "../domain/errors.js";
import { decoyPasswordHash, type PasswordCost, verifyPassword } from "../domain/passwords.js";
import { totpStep } from "../domain/totp.js";
import type { RateLimiter } from "../ratelimit/rate-limiter.js";
import { deploymentBucket } from "../redis/key-names.js";
import type { ConsoleSession, ConsoleStore, ConsoleUser } from "../store/console-store.js";

/** A session ends after this long without a request (docs/console.md). */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** And this long after sign-in, whatever its activity: a stolen cookie does not live forever. */
export const SESSION_MAX_MS = 7 * 24 * 3_600_000;
/** `last_seen_at` is written at most this often: a page's assets need no write each. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Sign-in attempts: per account (the email, known or not) from one client address, and per client
 * address, in one window. The address is the client's as LATCHKEY_TRUSTED_PROXIES resolves it.
 */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 30, windowMs: 15 * 60_000 } as const;
/** Console requests per signed-in user per minute, apart from the management groups. */
export const CONSOLE_ACTIONS_PER_MINUTE = 600;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A signed-in user, as every console request sees it. */
export interface SignedIn {
  user: ConsoleUser;
  session: ConsoleSession;
  /** The token forms must send back; derived from the cookie, so it is neither stored nor guessable. */
  csrfToken: string;
  /**
   * The key that seals a secret on its way to the page that shows it (services/secret-handoffs.ts),
   * derived from the cookie like the CSRF token: the database, which holds only the cookie's hash,
   * cannot open what it seals.
   */
  handoffKey: Buffer;
}

export interface ConsoleSessions {
  /**
   * Checks an email and password and opens a session; the returned token goes in the cookie and is
   * kept only hashed. A wrong password and an unknown email get the same refusal, in the same time.
   */
  signIn(input: {
    email: string;
    password: string;
    /** The authenticator's code, for a user with two-factor sign-in on; ignored otherwise. */
    code?: string;
    /** The client's address (http/client-origin.ts): both limits are counted per address. */
    address: string;
  }): Promise<{ token: string; user: ConsoleUser }>;
  /** The session a cookie names, or undefined when it is unknown, revoked, idle too long or its user gone. */
  resolve(token: string | undefined): Promise<SignedIn | undefined>;
  /** Revokes the session; its cookie is refused from then on, on every node. */
  signOut(token: string): Promise<void>;
  /**
   * Confirms a signed-in user's current password before a change to their account; attempts count
   * against the sign-in limits, so the form is no way around them. A wrong one is a 400 naming the field.
   */
  confirmPassword(input: { user: ConsoleUser; password: string; address: string }): Promise<void>;
  /** Counts one console request of a user against its own allowance; throws `rate_limited` past it. */
  countAction(userId: string): Promise<void>;
}

function throttled(retryAfterMs: number): LatchkeyError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new LatchkeyError("rate_limited", `Too many sign-in attempts. Try again in ${seconds} seconds.`, {
    retryAfterSeconds: seconds,
  });
}

export function createConsoleSessions(deps: {
  store: ConsoleStore;
  limiter: RateLimiter;
  clock: Clock;
  /** Namespace of the limiter's buckets (LATCHKEY_REDIS_PREFIX). */
  namespace: string;
  /** The cost users' hashes are made with (LATCHKEY_PASSWORD_COST), so the decoy takes as long. */
  passwordCost?: PasswordCost;
}): ConsoleSessions {
  const { store, limiter, clock, namespace, passwordCost } = deps;
  const decoy = () => decoyPasswordHash(passwordCost);
  // Hashed now, not on the first unknown email: that attempt would otherwise take twice as long.
  void decoy();
  const bucket = (kind: string, id: string) => deploymentBucket(namespace, kind, id);

  /**
   * Counts one sign-in attempt (or password confirmation) before the password is checked, atomically,
   * so parallel guesses cannot pass together. Both buckets hold the client's address: failures
   * elsewhere, by anyone, never refuse a right password from an address that has not failed.
   */
  async function admitAttempt(email: string, address: string) {
    // Keyed by a hash of the email and the address: bucket names may be seen in Redis.
    const byAccount = await limiter.consume(
      bucket("sign-in-account", sha256(`${email.trim().toLowerCase()}\n${address}`)),
      SIGN_IN_LIMITS.perAccount,
      SIGN_IN_LIMITS.windowMs,
    );
    if (byAccount.type === "deny") throw throttled(byAccount.retryAfterMs);
    const byAddress = await limiter.consume(
      bucket("sign-in-address", address),
      SIGN_IN_LIMITS.perAddress,
      SIGN_IN_LIMITS.windowMs,
    );
    if (byAddress.type === "deny") throw throttled(byAddress.retryAfterMs);
  }

  return {
    async signIn({ email, password, code, address }) {
      await admitAttempt(email, address);
      const user = await store.findUserByEmail(email.trim());
      const matches = await verifyPassword(password, user?.passwordHash ?? (await decoy()));
      // One answer for every wrong part, so that a right password is never confirmed without its code.
      const refused = () => new LatchkeyError("unauthorized", "Wrong email, password or two-factor code.");
      if (!user || !matches) throw refused();
      if (user.totpSecret !== null) {
        const step = totpStep(user.totpSecret, code ?? "", clock.now());
        if (step === null || !(await store.takeTotpStep(user.id, step))) throw refused();
      }
      const token = randomBytes(32).toString("base64url");
      const now = clock.now();
      await store.insertSession({
        tokenHash: sha256(token),
        userId: user.id,
        createdAt: now,
        lastSeenAt: now,
        revokedAt: null,
      });
      return { token, user };
    },

    async resolve(token) {
      if (!token || token.length > 100) return undefined;
      const tokenHash = sha256(token);
      const session = await store.findSession(tokenHash);
      const now = clock.now();
      if (
        !session ||
        session.revokedAt !== null ||
        now - session.lastSeenAt > SESSION_IDLE_MS ||
        now - session.createdAt > SESSION_MAX_MS
      )
        return undefined;
      const user = await store.findUserById(session.userId);
      if (!user) return undefined;
      if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await store.touchSession(tokenHash, now);
      return {
        user,
        session,
        csrfToken: createHash("sha256").update(`csrf:${token}`).digest("base64url"),
        handoffKey: createHash("sha256").update(`handoff:${token}`).digest(),
      };
    },

    async confirmPassword({ user, password, address }) {
      await admitAttempt(user.email, address);
      if (!(await verifyPassword(password, user.passwordHash))) {
        throw invalidRequest("The current password is wrong; nothing was changed.", "/current_password");
      }
    },

    async signOut(token) {
      await store.revokeSession(sha256(token), clock.now());
    },

    async countAction(userId) {
      const decision = await limiter.consume(bucket("actions", userId), CONSOLE_ACTIONS_PER_MINUTE, 60_000);
      if (decision.type === "deny") {
        const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
        throw new LatchkeyError(
          "rate_limited",
          `Rate limit exceeded: the console allows ${CONSOLE_ACTIONS_PER_MINUTE} requests per minute per user.`,
          { retryAfterSeconds: seconds },
        );
      }
    },
  };
}
