// The entry of runLatchkey's worker thread (cli-runner.ts): standard input is the text the test gave,
// a stream that ends after it like a pipe's, then the built command runs as `node dist/cli/bin.js` would.
// Node's own `stdin: true` would keep the thread alive after a command that never reads its input.
import { Readable } from "node:stream";
import { workerData } from "node:worker_threads";

const stdin = Readable.from(workerData.stdin === "" ? [] : [Buffer.from(workerData.stdin)]);
Object.defineProperty(process, "stdin", { configurable: true, get: () => stdin });
await import(workerData.bin);
