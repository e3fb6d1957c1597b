import type { Clock } from "../domain/clock.js";
import { HOUR_MS } from "../domain/usage-export-range.js";
import type { AccessControl, AccessDecision } from "./access-decision.js";
import type { DecisionCounts, UsageExportStore } from "../store/usage-export-store.js";

/** Where failed writes are reported; the Fastify (pino) logger fits. */
export interface DecisionTallyLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Counts the decisions authorize and forward-auth make, per organization and UTC hour, for the usage
 * export. The request path only adds to a map in memory; the counts reach the database in one batch
 * every few seconds (`decision_hours`, added to what other nodes wrote), never a write per decision.
 */
export interface DecisionTally {
  /** Counts `decision` for its organization; a refusal before credentials proved one is not counted. */
  note(decision: AccessDecision): void;
  /** Writes the counts held so far; rejects (keeping them for the next write) when the database fails. */
  flush(): Promise<void>;
  /** Stops the periodic writes and writes what is left. */
  close(): Promise<void>;
}

/** How often each node writes its counts: what a crash of the node can lose at most. */
export const DECISION_FLUSH_INTERVAL_MS = 5_000;

interface Counts {
  allowed: number;
  refused: number;
}

export interface DecisionTallyOptions {
  store: Pick<UsageExportStore, "addDecisions">;
  clock: Clock;
  log: DecisionTallyLog;
  intervalMs?: number;
}

export function createDecisionTally(options: DecisionTallyOptions): DecisionTally {
  const { store, clock, log } = options;
  // hour start -> organization id -> counts: a decision finds its hour with one number, its
  // organization with the id it already holds.
  let hours = new Map<number, Map<string, Counts>>();

  function add(hourStart: number, orgId: string, allowed: number, refused: number): void {
    let organizations = hours.get(hourStart);
    if (organizations === undefined) {
      organizations = new Map();
      hours.set(hourStart, organizations);
    }
    const counts = organizations.get(orgId);
    if (counts === undefined) organizations.set(orgId, { allowed, refused });
    else {
      counts.allowed += allowed;
      counts.refused += refused;
    }
  }

  async function flush(): Promise<void> {
    if (hours.size === 0) return;
    const taken = hours;
    hours = new Map();
    const rows: DecisionCounts[] = [];
    for (const [hourStart, organizations] of taken) {
      for (const [orgId, counts] of organizations) rows.push({ orgId, hourStart, ...counts });
    }
    try {
      await store.addDecisions(rows);
    } catch (error) {
      // Nothing was written (one transaction): the counts go back, to be written with the next ones.
      for (const row of rows) add(row.hourStart, row.orgId, row.allowed, row.refused);
      throw error;
    }
  }

  const timer = setInterval(() => {
    flush().catch((error: unknown) => {
      log.warn(
        { error: error instanceof Error ? error.message : String(error) },
        "could not record decision counts; kept for the next write",
      );
    });
  }, options.intervalMs ?? DECISION_FLUSH_INTERVAL_MS);
  timer.unref();

  return {
    note(decision) {
      const orgId = decision.caller?.orgId;
      if (orgId === undefined) return;
      const now = clock.now();
      const hourStart = now - (now % HOUR_MS);
      if (decision.allowed) add(hourStart, orgId, 1, 0);
      else add(hourStart, orgId, 0, 1);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** `access` whose decisions `tally` counts: what the composition root hands authorize and forward-auth. */
export function talliedAccess(access: AccessControl, tally: DecisionTally): AccessControl {
  const counted = (decision: AccessDecision): AccessDecision => {
    tally.note(decision);
    return decision;
  };
  return {
    authenticate: (authorization, client) => access.authenticate(authorization, client),
    decide: (request) => access.decide(request).then(counted),
    decideFor: (caller, request) => access.decideFor(caller, request).then(counted),
  };
}
