import type { ChildProcess } from "node:child_process";

/**
 * Kills `child` if the test process exits while it still runs, and forgets it once it has exited: a
 * worker runs many test files one after the other (isolate: false), and must not gather one `exit`
 * listener per process it ever started.
 */
export function killOnExit(child: ChildProcess): void {
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.once("exit", kill);
  child.once("exit", () => process.off("exit", kill));
}
