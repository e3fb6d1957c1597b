import type { Clock } from "../domain/clock.js";
import { LatchkeyError } from "../domain/errors.js";
import { hashingDisagreement, type SecretHashing } from "../domain/secret-hashing.js";
import type { SecretHashingStore } from "../store/secret-hashing-store.js";

/**
 * A starting server records how it hashes secrets: the deployment's hashing is its servers', whatever
 * the environment of an operator command run beside the database.
 */
export async function recordServerHashing(
  store: SecretHashingStore,
  own: SecretHashing,
  clock: Clock,
): Promise<void> {
  await store.record(own, clock.now());
}

/**
 * The deployment's hashing, when `own` (an operator command's environment) agrees with it; otherwise a
 * refusal saying what to change. Refused as well before any server recorded one: the command cannot
 * know whether the secrets it would store will ever authenticate.
 */
export async function agreedSecretHashing(
  store: SecretHashingStore,
  own: SecretHashing,
): Promise<SecretHashing> {
  const deployment = await store.recorded();
  if (!deployment) {
    throw new LatchkeyError(
      "invalid_request",
      "No latchkey server has started on this database yet (or since the upgrade), so how it hashes " +
        "secrets is unknown: start one (latchkey serve) with the deployment's environment, then run " +
        "this again.",
    );
  }
  refuseDisagreement(deployment, own);
  return deployment;
}

/**
 * For the commands that make a deployment's first secrets (`org create`, `service-token create` beside
 * the database): refused when `own` disagrees with the hashing a server recorded, like
 * agreedSecretHashing; allowed before any server has started, since setting a database up (an
 * organization, the first provisioning token) comes before its first `latchkey serve`.
 */
export async function checkSecretHashing(store: SecretHashingStore, own: SecretHashing): Promise<void> {
  const deployment = await store.recorded();
  if (deployment) refuseDisagreement(deployment, own);
}

function refuseDisagreement(deployment: SecretHashing, own: SecretHashing): void {
  const disagreement = hashingDisagreement(deployment, own);
  if (disagreement !== null) {
    throw new LatchkeyError(
      "invalid_request",
      `Secrets hashed here would never authenticate: ${disagreement}. Run this with the servers' ` +
        "LATCHKEY_SECRET_PEPPER (or without one, as they run).",
    );
  }
}
