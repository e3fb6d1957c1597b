import { defineConfig } from "rolldown";

/**
 * The two executables, `dist/main.js` (`npm start`) and `dist/cli/bin.js` (`latchkey`), bundled from
 * src/ in place of the modules `tsc` wrote for them: with each of TypeBox's and Kysely's hundreds of files a module of its own, Node
 * spent more time loading modules than the command itself ran (bench/start-time.mjs). Modules that the
 * CLI imports only when a command runs stay separate chunks, loaded then. The rest of `dist/` (what the
 * package exports) stays as `tsc` wrote it. `npm run build` runs it through scripts/bundle.mjs.
 */
export default defineConfig({
  input: { main: "src/main.ts", "cli/bin": "src/cli/bin.ts" },
  platform: "node",
  // Loaded from node_modules as installed: native addons, and a plugin that serves files beside its code.
  external: ["better-sqlite3", "pg-native", "@fastify/swagger-ui"],
  output: {
    dir: "dist",
    format: "esm",
    chunkFileNames: "chunks/[name]-[hash].js",
    sourcemap: true,
  },
  logLevel: "warn",
});
