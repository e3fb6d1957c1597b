// Bundles the two executables as rolldown.config.mjs says, through Rolldown's API: its command line
// prints a table of every chunk on each build (about 90 lines in every `npm test` and CI log), the API
// nothing but warnings and errors.
import { rmSync } from "node:fs";
import { build } from "rolldown";
import config from "../rolldown.config.mjs";

// Chunk names carry a hash of their content: the last build's chunks go first, or they would pile up.
// (Rolldown's own `cleanDir` would empty all of dist/, with what tsc wrote there.)
rmSync(new URL("../dist/chunks", import.meta.url), { recursive: true, force: true });

const started = performance.now();
const { output } = await build(config);
const chunks = output.filter((file) => file.type === "chunk").length;
const ms = Math.round(performance.now() - started);
console.log(`rolldown: dist/main.js and dist/cli/bin.js bundled into ${chunks} chunks in ${ms} ms`);
