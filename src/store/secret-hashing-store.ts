import type { SecretHashing } from "../domain/secret-hashing.js";

/** The one record of how this database's servers hash secrets (domain/secret-hashing.ts). */
export interface SecretHashingStore {
  /** What the last server to start recorded; undefined before any server of this version started. */
  recorded(): Promise<SecretHashing | undefined>;
  /** Records a starting server's hashing, replacing what an earlier start recorded. */
  record(hashing: SecretHashing, at: number): Promise<void>;
}
