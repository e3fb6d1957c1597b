/** Where a component reports what an operator should see (Redis lost, a write half done); pino fits. */
export interface WarningLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Warnings as JSON lines on standard error, where there is no server logger: the CLI, bare services. */
export const stderrLog: WarningLog = {
  warn: (details, message) =>
    process.stderr.write(`${JSON.stringify({ level: "warn", message, ...details })}\n`),
};

/**
 * A log that keeps the warnings it is given until `release()`, then writes them to `target` and passes
 * every later one straight on: the server's start-time warnings (Redis unreachable, a setting a
 * documented feature needs) follow its `latchkey started` line instead of coming before it.
 */
export function heldUntilReleased(target: WarningLog): WarningLog & { release(): void } {
  let held: [Record<string, unknown>, string][] | undefined = [];
  return {
    warn(details, message) {
      if (held) held.push([details, message]);
      else target.warn(details, message);
    },
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const [details, message] of waiting) target.warn(details, message);
    },
  };
}
