import { availableParallelism, loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * How long the tests give a process to start, and the vitest timeouts around them, on a machine that
 * may be busy: a start that takes 2 s on an idle machine took over 15 s while other suites (or other
 * work) kept both cores busy, and a fixed deadline then failed a test that had nothing wrong. Every
 * deadline here is a base for an idle machine, stretched by the machine's load per core.
 */

/** Past this, a start that has not finished is taken to be stuck, however busy the machine. */
const MAX_SLOWDOWN = 6;

/** How much slower than idle the machine runs now: its 1-minute load per core, from 1 to 6. */
export function machineSlowdown(): number {
  const [oneMinute = 0] = loadavg();
  const perCore = oneMinute / availableParallelism();
  return Math.min(MAX_SLOWDOWN, Math.max(1, perCore));
}

/** `baseMs`, the deadline on an idle machine, stretched by the machine's load right now. */
export function scaledMs(baseMs: number): number {
  return Math.round(baseMs * machineSlowdown());
}

export interface StartWait {
  /** What is starting, for the error: "the server", "caddy". */
  what: string;
  /** Resolves true once it is ready (e.g. `/healthz` answers); a rejection counts as not yet. */
  ready: () => boolean | Promise<boolean>;
  /** Why it can never become ready (e.g. it exited), or undefined while it still may. */
  failed?: () => string | undefined;
  /** What it printed so far, for the error. */
  output: () => string;
  /** The deadline on an idle machine. */
  baseMs: number;
  /** Pause between two checks of `ready`. Default 50 ms. */
  intervalMs?: number;
}

/**
 * Checks `ready` until it holds, failing at once when the process can no longer start, or once the
 * deadline has passed. The deadline is recomputed at every check, so load that rises during the wait
 * (other suites starting their own processes) extends it.
 */
export async function waitUntilStarted(wait: StartWait): Promise<void> {
  const started = performance.now();
  for (;;) {
    const failure = wait.failed?.();
    if (failure !== undefined) throw new Error(`${wait.what} ${failure}:\n${wait.output()}`);
    try {
      if (await wait.ready()) return;
    } catch {
      // not ready yet (e.g. not listening)
    }
    const waited = performance.now() - started;
    if (waited > scaledMs(wait.baseMs)) {
      throw new Error(
        `${wait.what} was not ready after ${Math.round(waited)} ms (${wait.baseMs} ms on an idle machine, ` +
          `load per core now ${machineSlowdown().toFixed(1)}):\n${wait.output()}`,
      );
    }
    await sleep(wait.intervalMs ?? 50);
  }
}
