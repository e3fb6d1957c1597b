// The long variant of test/multinode/database-faults.test.ts (docs/several-nodes.md, "When PostgreSQL
// goes away"): two real nodes over a PostgreSQL of their own, loaded with reads and creates while its
// backends are terminated, then while it is stopped and started again, each phase lasting --seconds.
// Prints the answers of each phase by status, and how long after its return each node served again.
//   npm run build && node bench/database-restart.mjs [--seconds 10]
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "10" } } });
const seconds = Number(values.seconds);
if (!(seconds > 0)) throw new Error("--seconds must be a positive number");

const root = new URL("../", import.meta.url).pathname;
const child = spawn(
  process.execPath,
  [
    "node_modules/vitest/vitest.mjs",
    "run",
    "test/multinode/database-faults.test.ts",
    "--reporter=verbose",
    "--testTimeout=600000",
  ],
  {
    cwd: root,
    env: { ...process.env, LATCHKEY_FAULT_SECONDS: String(seconds), LATCHKEY_REQUIRE_SERVICES: "1" },
    stdio: "inherit",
  },
);
child.on("exit", (code) => process.exit(code ?? 1));
