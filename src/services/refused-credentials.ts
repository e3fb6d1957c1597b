import { API_ID_PREFIX } from "../domain/credentials.js";
import { parseBasicCredentials } from "./authenticate.js";

/** Where the refusals are reported: the app's logger at `warn`. */
export interface RefusalLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Notes every refused credential (401) and logs at most one line per api_id per minute. */
export interface RefusedCredentials {
  /** One 401, for the `Authorization` value that was refused. Never logs the value itself. */
  note(authorization: string | null | undefined): void;
}

export interface RefusedCredentialsOptions {
  log: RefusalLog;
  now(): number;
  /** One line per api_id per this many milliseconds at most (a minute). */
  intervalMs?: number;
  /** api_ids followed at once; past it, refusals of new ones count under one `(other)` line. */
  maxTracked?: number;
}

/** What an api_id looks like (`lkid_` + 22 base62): anything else could be a secret sent by mistake. */
const API_ID = new RegExp(`^${API_ID_PREFIX}[A-Za-z0-9]{22}$`);

/** The name a refusal is counted under: its api_id, or a label when there is no plausible one. */
function subjectOf(authorization: string | null | undefined): string {
  if (!authorization) return "(none)";
  const credentials = parseBasicCredentials(authorization);
  if (!credentials) return "(malformed)";
  return API_ID.test(credentials.apiId) ? credentials.apiId : "(malformed)";
}

interface Tally {
  /** When the last line for this api_id was written. */
  loggedAt: number;
  /** Refusals since that line. */
  since: number;
}

/**
 * Refused credentials at `warn`: the first refusal of an api_id is logged at once, the following ones
 * are counted, and the next refusal a minute or more after the last line logs the count since it. A
 * guessing attack is visible without a line per request, and no secret is ever written.
 */
export function createRefusedCredentials(options: RefusedCredentialsOptions): RefusedCredentials {
  const intervalMs = options.intervalMs ?? 60_000;
  const maxTracked = options.maxTracked ?? 10_000;
  const tallies = new Map<string, Tally>();

  function forgetQuiet(now: number): void {
    for (const [subject, tally] of tallies) {
      if (now - tally.loggedAt >= intervalMs && tally.since === 0) tallies.delete(subject);
    }
  }

  return {
    note(authorization) {
      const now = options.now();
      let subject = subjectOf(authorization);
      if (!tallies.has(subject) && tallies.size >= maxTracked) {
        forgetQuiet(now);
        if (tallies.size >= maxTracked) subject = "(other)";
      }
      const tally = tallies.get(subject);
      if (tally && now - tally.loggedAt < intervalMs) {
        tally.since += 1;
        return;
      }
      const refused = (tally?.since ?? 0) + 1;
      tallies.set(subject, { loggedAt: now, since: 0 });
      options.log.warn(
        { api_id: subject, refused, since_seconds: tally ? Math.round((now - tally.loggedAt) / 1000) : 0 },
        "credentials refused (401)",
      );
    },
  };
}
