import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect, onTestFinished, test } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { tempDir } from "../helpers/processes.js";
import { startThrowawayRedis } from "../helpers/redis-server.js";
import { describeWithServices } from "../helpers/services.js";
import { scaledMs } from "../helpers/start-deadline.js";
import { recipeScript, recipeSteps } from "./recipes.js";

const root = new URL("../../", import.meta.url).pathname;
const wrapper = new URL("./curl-wrapper.sh", import.meta.url).pathname;

/**
 * `as-written` (set by `node bench/recipes.mjs`): the install steps run as the README says, `npm ci`
 * and the build in the copy (minutes). Otherwise (CI) the copy gets this checkout's `node_modules`
 * (hard links) and built files, which `npm test` has just built from the same sources.
 */
const INSTALL_AS_WRITTEN = process.env.LATCHKEY_TEST_RECIPES_INSTALL === "as-written";

/** What a fresh clone holds: the files git tracks, and new ones it does not ignore (not committed yet). */
function freshCopy(): string {
  const copy = tempDir();
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  for (const file of new Set(listed.split("\0").filter(Boolean))) {
    if (!existsSync(join(root, file))) continue; // deleted, not committed yet
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  return copy;
}

/** In CI: what `npm ci` and `npm run build` would have made in the copy. */
function provideInstall(copy: string): void {
  for (const built of ["dist/cli/bin.js", "dist/main.js", "packages/client/dist/index.js"]) {
    expect(existsSync(join(root, built)), `build first (npm run build): ${built}`).toBe(true);
  }
  execFileSync("cp", ["-al", join(root, "node_modules"), join(copy, "node_modules")]);
  cpSync(join(root, "dist"), join(copy, "dist"), { recursive: true });
  cpSync(join(root, "packages/client/dist"), join(copy, "packages/client/dist"), { recursive: true });
}

/** A file's text with the reader's addresses replaced by the test's own; each must be there. */
function substituted(file: string, replacements: [RegExp, string][]): string {
  let text = readFileSync(join(root, file), "utf8");
  for (const [pattern, value] of replacements) {
    expect(pattern.test(text), `${file} no longer mentions ${pattern}: update recipes.test.ts`).toBe(true);
    text = text.replace(new RegExp(pattern.source, "g"), value);
  }
  return text;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/**
 * Runs a file's steps in one bash in the copy (its own process group, killed whole if the test ends
 * first), and expects it to succeed.
 */
async function runRecipe(copy: string, file: string, text: string, env: Record<string, string>) {
  const logs = join(copy, ".recipe-logs", file.replace(/\W/g, "-"));
  mkdirSync(logs, { recursive: true });
  const script = recipeScript(file, recipeSteps(file, text), {
    curlWrapper: wrapper,
    installAsWritten: INSTALL_AS_WRITTEN,
  });
  writeFileSync(join(logs, "recipe.sh"), script);
  const out = openSync(join(logs, "stdout"), "w");
  const err = openSync(join(logs, "stderr"), "w");
  // Only what a reader's shell has: none of the test run's LATCHKEY_ settings.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(LATCHKEY_|PORT$|HOST$)/.test(name)),
  );
  const bash = spawn("bash", [join(logs, "recipe.sh")], {
    cwd: copy,
    detached: true,
    stdio: ["ignore", out, err],
    env: {
      ...inherited,
      ...env,
      RECIPE_LOGS: logs,
      RECIPE_WAIT_TENTHS: String(Math.round(scaledMs(30_000) / 100)),
      DOCS_CURL_LOG: join(logs, "curl.log"),
    },
  });
  closeSync(out);
  closeSync(err);
  const pgid = bash.pid ?? 0;
  onTestFinished(() => {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // the group has ended
    }
  });
  const [code] = (await once(bash, "exit")) as [number | null];
  const read = (name: string) => (existsSync(join(logs, name)) ? readFileSync(join(logs, name), "utf8") : "");
  expect(code, `${file} failed:\n${read("stderr")}\ncurl calls:\n${read("curl.log")}`).toBe(0);
  return { curls: read("curl.log").trim().split("\n").filter(Boolean) };
}

/**
 * Every ```sh block of the README, then of docs/several-nodes.md, run as written, in order, in one
 * fresh copy of the repository: install, start, the console's owner, the curl tour; then three nodes
 * over PostgreSQL and Redis, an organization, a key disabled through one node and refused by another,
 * and SIGTERM to each server, which must leave nothing running. The reader's addresses (port 8080,
 * 8081 to 8083, PostgreSQL and Redis on their usual ports) are replaced by the test's own.
 */
describeWithServices(["postgres", "redisServer"], "the README and docs/several-nodes.md", (services) => {
  test(
    "run as written on a fresh copy of the repository, in order, and leave no server running",
    async () => {
      const copy = freshCopy();
      if (!INSTALL_AS_WRITTEN) provideInstall(copy);

      const readmePort = await freePort();
      const readme = await runRecipe(
        copy,
        "README.md",
        substituted("README.md", [[/\b8080\b/, `${readmePort}`]]),
        {
          PORT: String(readmePort),
        },
      );
      // The tour's curls ran (each one checked against its block's expected status).
      expect(readme.curls.length).toBeGreaterThanOrEqual(8);
      expect(await listening(readmePort)).toBe(false);
      // The second start made the console's owner, as the README says.
      expect(readFileSync(join(copy, "data/console-owner-credentials.env"), "utf8")).toMatch(
        /^LATCHKEY_OWNER_EMAIL=you@example\.com$/m,
      );

      const database = `recipes_${randomBytes(6).toString("hex")}`;
      const admin = new pg.Client({ connectionString: services.postgres });
      await admin.connect();
      await admin.query(`create database ${database}`);
      onTestFinished(async () => {
        await admin.query(`drop database if exists ${database} with (force)`);
        await admin.end();
      });
      const databaseUrl = new URL(services.postgres);
      databaseUrl.pathname = `/${database}`;
      const redis = await startThrowawayRedis(services.redisServer);
      onTestFinished(() => redis.stop());
      const nodePorts = [await freePort(), await freePort(), await freePort()];
      const nodes = await runRecipe(
        copy,
        "docs/several-nodes.md",
        substituted("docs/several-nodes.md", [
          [/postgres:\/\/latchkey:secret@127\.0\.0\.1:5432\/latchkey/, databaseUrl.toString()],
          [/redis:\/\/127\.0\.0\.1:6379/, redis.url],
          ...nodePorts.map((port, index): [RegExp, string] => [
            new RegExp(`\\b808${index + 1}\\b`),
            `${port}`,
          ]),
        ]),
        {},
      );

      expect(nodes.curls.some((line) => line.startsWith("401 "))).toBe(true);
      for (const port of nodePorts) expect(await listening(port), `port ${port}`).toBe(false);
    },
    INSTALL_AS_WRITTEN ? 30 * 60_000 : scaledMs(180_000),
  );
});
