/**
 * Tells a cache whether what it holds may still be used. Every write that could change a cached record
 * (by this process or any other) moves the generation on; a record read in an older generation is
 * never served. A database with no cheap, exact signal has no Freshness, and nothing is cached.
 */
export interface Freshness {
  /** The current generation; a change since a record was read means it must be read again. */
  generation(): number;
  /**
   * Called at the start of every request: `resume` is called once the database has been asked, after
   * the request started (possibly together with other requests that started meanwhile).
   */
  beginRequest(resume: () => void): void;
}
