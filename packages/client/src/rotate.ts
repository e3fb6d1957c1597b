import { configurationOf } from "./configuration.js";
import { KeyRotationError, LatchkeyError, type RotationStep } from "./errors.js";
import type { Transport } from "./transport.js";
import type { CreatedKey, KeyConfiguration, KeyRecord, RolledKey } from "./types.js";

/** A rotation step that has just completed, for progress output. */
export interface RotationProgress {
  /** The step that completed. */
  step: RotationStep;
  /** The key being replaced, as read at the start. */
  oldKey: KeyRecord;
  /** The replacement, once created (its `api_key` is the new secret). */
  newKey: CreatedKey | undefined;
}

/** How to rotate; every member is optional. */
export interface RotateOptions {
  /**
   * Stores the new credentials (a secret manager, a file) before anything relies on them; the spec's
   * "store" step. Throwing stops the rotation with the old key enabled.
   */
  store?: (newKey: CreatedKey) => Promise<void> | void;
  /**
   * Switches your application to the new credentials and checks that it works; the spec's "switch and
   * verify" step. Runs after the client's own check that the credentials authenticate. Throwing, or
   * returning (or resolving to) `false`, stops the rotation with the old key enabled.
   */
  verify?: (newKey: CreatedKey) => unknown;
  /** Told of each completed step, in order, to show progress. */
  onStep?: (progress: RotationProgress) => void;
  /**
   * Rotate by latchkey's roll instead of a new key: the key keeps its id and api_id and its old secret
   * works for this many seconds (0 to 604,800) while the new credentials are stored and verified.
   */
  overlapSeconds?: number;
}

/** What rotation needs from the keys resource. */
export interface RotationKeys {
  get(id: string): Promise<KeyRecord>;
  create(config: KeyConfiguration): Promise<CreatedKey>;
  disable(id: string): Promise<void>;
  roll(id: string, options: { overlapSeconds?: number }): Promise<RolledKey>;
}

/**
 * Proves the new credentials authenticate by reading the new key with them. A 403 `missing_permission`
 * proves it as well as a 200 does (the server checks credentials before permissions); a 401 does not.
 */
async function assertAuthenticates(transport: Transport, newKey: CreatedKey): Promise<void> {
  try {
    await transport.request({
      method: "GET",
      path: `/v1/api-keys/${encodeURIComponent(newKey.id)}`,
      group: "api-key:read",
      credentials: { apiId: newKey.api_id, apiKey: newKey.api_key },
    });
  } catch (error) {
    if (error instanceof LatchkeyError && error.status === 403 && error.code === "missing_permission") return;
    if (error instanceof LatchkeyError && error.status === 401) {
      throw new LatchkeyError({
        status: error.status,
        code: error.code,
        message: `The new credentials did not authenticate: ${error.message}`,
        body: error.body,
        requestId: error.requestId,
        cause: error,
      });
    }
    throw error;
  }
}

/** The old key's expiry, for its replacement, while it is still ahead (an expired key has none to give). */
function laterExpiry(key: KeyRecord): { expires_at?: string } {
  return key.expires_at !== null && !key.expired && Date.parse(key.expires_at) > Date.now()
    ? { expires_at: key.expires_at }
    : {};
}

/** Switches the client to `key`'s credentials when it is the key the client runs on. */
function adopt(transport: Transport, oldKey: KeyRecord, key: CreatedKey): void {
  // Rotating the key this client runs on would otherwise leave the client with dead credentials.
  if (oldKey.api_id === transport.apiId) transport.useCredentials({ apiId: key.api_id, apiKey: key.api_key });
}

/**
 * Rotation by roll: read -> roll -> store -> verify. The old secret works until the overlap ends, so
 * a failure before the roll leaves the key as it was, and a failure after it says until when the old
 * secret still works (the new one is never put in the error).
 */
async function rollKey(
  keys: RotationKeys,
  transport: Transport,
  id: string,
  options: RotateOptions,
): Promise<CreatedKey> {
  let step: RotationStep = "read";
  let rolled: RolledKey | undefined;
  let oldKey: KeyRecord | undefined;
  const completed = (done: RotationStep) => {
    if (oldKey) options.onStep?.({ step: done, oldKey, newKey: rolled });
  };
  try {
    oldKey = await keys.get(id);
    completed("read");
    step = "roll";
    rolled = await keys.roll(id, { overlapSeconds: options.overlapSeconds ?? 0 });
    completed("roll");
    step = "store";
    await options.store?.(rolled);
    completed("store");
    step = "verify";
    await assertAuthenticates(transport, rolled);
    if (options.verify && (await options.verify(rolled)) === false) {
      throw new Error("The verify callback returned false.");
    }
    completed("verify");
  } catch (cause) {
    throw new KeyRotationError(step, id, undefined, cause, rolled?.previous_secret_expires_at);
  }
  adopt(transport, oldKey, rolled);
  return rolled;
}

/**
 * Replaces a key: read -> create (same name, description, permissions, all-future flag) -> store ->
 * verify -> disable the old key. The old key is touched only in the last step, so any failure leaves it
 * as it was, and the thrown {@link KeyRotationError} names the step and the new key to clean up.
 */
export async function rotateKey(
  keys: RotationKeys,
  transport: Transport,
  id: string,
  options: RotateOptions = {},
): Promise<CreatedKey> {
  if (options.overlapSeconds !== undefined) return rollKey(keys, transport, id, options);
  let step: RotationStep = "read";
  let newKey: CreatedKey | undefined;
  let oldKey: KeyRecord | undefined;
  const completed = (done: RotationStep) => {
    if (oldKey) options.onStep?.({ step: done, oldKey, newKey });
  };
  try {
    oldKey = await keys.get(id);
    completed("read");
    step = "create";
    newKey = await keys.create({ ...configurationOf(oldKey), disabled: false, ...laterExpiry(oldKey) });
    completed("create");
    step = "store";
    await options.store?.(newKey);
    completed("store");
    step = "verify";
    await assertAuthenticates(transport, newKey);
    if (options.verify && (await options.verify(newKey)) === false) {
      throw new Error("The verify callback returned false.");
    }
    completed("verify");
    step = "disable";
    await keys.disable(id);
    completed("disable");
  } catch (cause) {
    throw new KeyRotationError(step, id, newKey?.id, cause);
  }
  adopt(transport, oldKey, newKey);
  return newKey;
}
