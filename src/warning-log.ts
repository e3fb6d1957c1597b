/** Where a component reports what an operator should see (Redis lost, a write half done); pino fits. */
export interface WarningLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Warnings as JSON lines on standard error, where there is no server logger: the CLI, bare services. */
export const stderrLog: WarningLog = {
  warn: (details, message) =>
    process.stderr.write(`${JSON.stringify({ level: "warn", message, ...details })}\n`),
};
