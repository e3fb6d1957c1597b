import { configurationOf } from "./configuration.js";
import { KeyRotationError, LatchkeyError, type RotationStep } from "./errors.js";
import type { Transport } from "./transport.js";
import type { CreatedKey, KeyConfiguration, KeyRecord } from "./types.js";

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
}

/** What rotation needs from the keys resource. */
export interface RotationKeys {
  get(id: string): Promise<KeyRecord>;
  create(config: KeyConfiguration): Promise<CreatedKey>;
  disable(id: string): Promise<void>;
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
    newKey = await keys.create({ ...configurationOf(oldKey), disabled: false });
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
  // Rotating the key this client runs on would otherwise leave the client with dead credentials.
  if (oldKey.api_id === transport.apiId) {
    transport.useCredentials({ apiId: newKey.api_id, apiKey: newKey.api_key });
  }
  return newKey;
}
