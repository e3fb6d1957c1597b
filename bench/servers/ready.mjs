// The small protocol between bench/run.mjs and its server processes.

/** Prints the one JSON line run.mjs waits for: the port and, per target, its path and headers. */
export function printReady(app, targets) {
  const { port } = app.server.address();
  process.stdout.write(`${JSON.stringify({ ready: true, port, targets })}\n`);
}

/**
 * Exits through process.exit on SIGTERM/SIGINT (after closing the server), because `node --cpu-prof`
 * writes its profile only on a normal exit, never when the process is killed by a signal.
 */
export function stopOnSignal(close) {
  const stop = () => {
    const timer = setTimeout(() => process.exit(0), 2000);
    timer.unref();
    Promise.resolve()
      .then(close)
      .finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
