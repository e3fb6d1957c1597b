import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import { killOnExit } from "./kill-on-exit.js";

/** One busy-looping process per core, as another tenant of the machine would be. */
export function startCpuHogs(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () => {
    const hog = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
    killOnExit(hog);
    return hog;
  });
}

export async function stopCpuHogs(hogs: ChildProcess[]): Promise<void> {
  await Promise.all(
    hogs.map(async (hog) => {
      if (hog.exitCode !== null || hog.signalCode !== null) return;
      const exited = once(hog, "exit");
      hog.kill("SIGKILL");
      await exited;
    }),
  );
}

/** Runs `work` while every core is busy with another process. */
export async function withCpuHogs<T>(work: () => Promise<T>): Promise<T> {
  const hogs = startCpuHogs();
  try {
    return await work();
  } finally {
    await stopCpuHogs(hogs);
  }
}
