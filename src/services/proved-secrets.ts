import { type SecretHasher, sameStringInConstantTime } from "../domain/credentials.js";

/**
 * The connection a request came on (its socket), as the services see it: only its identity and
 * lifetime matter. A proof remembered for it lives exactly as long as it does.
 */
export type Connection = object;

/**
 * What each connection has proved: the last secret (a key's api_key, a service token) that verified on
 * it, with the stored hash it matched. A client on a keep-alive connection sends the same credentials
 * with every request, and proving them again costs a SHA-256 each time, the largest single cost of the
 * key read on a CPU without SHA instructions (bench/README.md, "Secrets proved once per connection").
 *
 * The memo stands in for that hash only, never for the record: the key or token is still read on every
 * request (from the store's exact cache) and its stored hash, state and permissions checked, so a
 * disable, a change or a revocation is seen on the very next request. Only a secret that verified is
 * remembered, one per connection, so neither guessing nor unknown api_ids can grow it; a different
 * secret on the same connection (a gateway multiplexing callers) is compared in constant time and then
 * verified in full.
 */
export interface ProvedSecrets {
  /** The stored hash `secret` matched on `connection`, when it is the last secret proved there. */
  hashOf(connection: Connection | undefined, secret: string): string | undefined;
  /** Remembers that `secret` matched `storedHash` on `connection`, in place of what it proved before. */
  remember(connection: Connection | undefined, secret: string, storedHash: string): void;
}

interface Proof {
  secret: string;
  storedHash: string;
}

export function createProvedSecrets(): ProvedSecrets {
  // Held weakly: nothing here keeps a closed connection, or its secret, in memory.
  const proofs = new WeakMap<Connection, Proof>();
  return {
    hashOf(connection, secret) {
      const proof = connection && proofs.get(connection);
      return proof && sameStringInConstantTime(proof.secret, secret) ? proof.storedHash : undefined;
    },
    remember(connection, secret, storedHash) {
      if (connection) proofs.set(connection, { secret, storedHash });
    },
  };
}

/** What a secret is checked with: the hasher, and what the request's connection proved before. */
export interface SecretCheck {
  hasher: Pick<SecretHasher, "matches">;
  proved: ProvedSecrets;
  /** The connection the secret came on; undefined where it is not the connection's own (authorize). */
  connection: Connection | undefined;
}

/**
 * Whether `secret` matches `storedHash`: taken from what the connection proved, or checked by the hasher
 * (in constant time) and remembered when it matches.
 */
export function secretMatches(check: SecretCheck, secret: string, storedHash: string): boolean {
  const { hasher, proved, connection } = check;
  if (proved.hashOf(connection, secret) === storedHash) return true;
  const matches = hasher.matches(secret, storedHash);
  if (matches) proved.remember(connection, secret, storedHash);
  return matches;
}
