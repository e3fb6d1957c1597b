import { loadConfig } from "../config.js";
import { createSecretHasher, type SecretHasher } from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import { secretHashingOf } from "../domain/secret-hashing.js";
import { checkSecretHashing } from "../services/secret-hashing.js";
import type { Stores } from "../store/open-database.js";
import { UsageError } from "./exit-codes.js";

/**
 * The hasher of an operator command that makes a secret beside the database (`org create`,
 * `service-token create`): this environment's LATCHKEY_SECRET_PEPPER, once it agrees with how the
 * deployment's servers hash (the secret_hashing record). A disagreement is the operator's to fix, as
 * for `keys import`: exit 2, nothing stored, instead of a secret that never authenticates.
 */
export async function agreedHasher(stores: Stores): Promise<SecretHasher> {
  const pepper = loadConfig().secretPepper;
  try {
    await checkSecretHashing(stores.secretHashing, secretHashingOf(pepper));
  } catch (error) {
    if (error instanceof LatchkeyError && error.code === "invalid_request")
      throw new UsageError(error.message);
    throw error;
  }
  return createSecretHasher(pepper);
}
