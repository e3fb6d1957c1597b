import type { Reporter, TestModule, TestSpecification, Vitest } from "vitest/node";

/** At most one progress line this often: the default reporter already prints every file. */
const EVERY_MS = 10_000;

function clock(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * How far the run is, as a person waiting for it wants to know: files done of the total, tests
 * passed and failed so far, and the time since the start. Printed beside Vitest's own reporter
 * (vitest.config.ts, .ci/run) every ten seconds and when the last file is done.
 */
export default class ProgressReporter implements Reporter {
  private vitest: Vitest | undefined;
  private total = 0;
  private done = 0;
  private passed = 0;
  private failed = 0;
  private startedAt = 0;
  private printedAt = 0;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.startedAt = this.printedAt = performance.now();
  }

  onTestModuleEnd(testModule: TestModule): void {
    this.done += 1;
    for (const test of testModule.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") this.passed += 1;
      else if (state === "failed") this.failed += 1;
    }
    const now = performance.now();
    if (now - this.printedAt < EVERY_MS && this.done < this.total) return;
    this.printedAt = now;
    const percent = Math.floor((100 * this.done) / Math.max(1, this.total));
    this.vitest?.logger.log(
      `progress: ${this.done} of ${this.total} files (${percent}%), ${this.passed} tests passed, ` +
        `${this.failed} failed, ${clock(now - this.startedAt)}`,
    );
  }
}
