import { serve } from "./serve.js";

// `npm start` (`node dist/main.js`): the server alone. The CLI's `latchkey serve` calls `serve` too.
serve().catch((error: unknown) => {
  process.stderr.write(`latchkey: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
