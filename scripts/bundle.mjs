// Bundles the two executables as rolldown.config.mjs says, through Rolldown's API: its command line
// prints a table of every chunk on each build (about 90 lines in every `npm test` and CI log), the API
// nothing but warnings and errors. `npx rolldown -c` builds the same and shows the table.
import { build } from "rolldown";
import config from "../rolldown.config.mjs";

const started = performance.now();
const { output } = await build(config);
const chunks = output.filter((file) => file.type === "chunk").length;
const ms = Math.round(performance.now() - started);
console.log(`rolldown: dist/main.js and dist/cli/bin.js bundled into ${chunks} chunks in ${ms} ms`);
