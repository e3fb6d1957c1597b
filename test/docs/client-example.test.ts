import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { tempDir } from "../helpers/processes.js";

const root = new URL("../../", import.meta.url).pathname;

/** The first ```ts block of docs/client.md: the complete example of the typed client. */
function clientExample(): string {
  const markdown = readFileSync(join(root, "docs/client.md"), "utf8");
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(markdown)?.[1];
  if (!block?.includes("new LatchkeyClient(")) throw new Error("docs/client.md has no client example");
  return block;
}

/** The ```js block of docs/client.md: the CommonJS way in. */
function commonJsExample(): string {
  const markdown = readFileSync(join(root, "docs/client.md"), "utf8");
  const block = /^```js\n([\s\S]*?)^```$/m.exec(markdown)?.[1];
  if (!block?.includes('require("@latchkey/client")'))
    throw new Error("docs/client.md has no CommonJS example");
  return block;
}

/**
 * The helpers the example declares and leaves to the reader (`declare function ...`), written so the
 * output shows they were called.
 */
const READERS_CODE = `
async function saveSecret(id, apiId, apiKey) {
  console.log("saved", id, apiId, apiKey.length > 20 ? "(secret)" : "(no secret)");
}
async function deployAndCheckHealth() {
  return "ok";
}
`;

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the example as a reader would, in a project of its own where `@latchkey/client` is the built
 * package (linked, as `npm install` of the tarball would place it), against the server at `url` as
 * `owner`.
 */
async function runExample(
  url: string,
  owner: { apiId: string; secret: string },
  { commonJs = false } = {},
): Promise<Run> {
  expect(existsSync(join(root, "packages/client/dist/index.js")), "build first: npm run build").toBe(true);
  const project = tempDir();
  // A project as `npm init -y` makes it: CommonJS (no "type"), where .mjs files are ES modules.
  await new Promise((resolve, reject) =>
    execFile("npm", ["init", "-y"], { cwd: project }, (error: Error | null) =>
      error ? reject(error) : resolve(null),
    ),
  );
  expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).type ?? "commonjs").toBe("commonjs");
  mkdirSync(join(project, "node_modules/@latchkey"), { recursive: true });
  symlinkSync(join(root, "packages/client"), join(project, "node_modules/@latchkey/client"));
  const { outputText } = ts.transpileModule(clientExample(), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const file = commonJs ? "example.js" : "example.mjs";
  writeFileSync(join(project, file), commonJs ? commonJsExample() : `${READERS_CODE}\n${outputText}`);
  const env = {
    ...process.env,
    LATCHKEY_URL: url,
    LATCHKEY_API_ID: owner.apiId,
    LATCHKEY_API_KEY: owner.secret,
  };
  // Not spawnSync: the server runs in this process and must keep answering.
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [file],
      { cwd: project, env, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) => resolve({ exitCode: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test("the client example of docs/client.md runs as written (as example.mjs in an npm init -y project), without a pause", async () => {
  const server = await startRealServer();
  const run = await runExample(server.url, await server.owner());
  expect(run.stderr).toBe("");
  expect(run.exitCode).toBe(0);
  const lines = run.stdout.trim().split("\n");
  // The key and its replacement were stored; the listing shows the renamed key; rotation ran in order.
  expect(lines.filter((line) => line.startsWith("saved key_"))).toHaveLength(2);
  expect(lines.filter((line) => line.endsWith("(secret)"))).toHaveLength(2);
  expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^key_\w+ renderer \(eu\) enabled$/)]));
  const steps = lines.filter((line) => line.startsWith("rotation:"));
  expect(steps).toEqual([
    "rotation: read",
    "rotation: create",
    "rotation: store",
    "rotation: verify",
    "rotation: disable",
  ]);
  expect(lines.at(-1)).toMatch(/^now using key_\w+$/);
  // One worker, within its organization's allowance: the client never waited.
  expect(lines.filter((line) => line.startsWith("waiting"))).toEqual([]);
});

test("when the example is rate-limited, its onWait prints every wait", async () => {
  // Two writes per 2-second window: the example's six writes have to wait for the window to move on.
  const server = await startRealServer({ LATCHKEY_RATE_WINDOW_SECONDS: "2" });
  const owner = await server.owner();
  await server.setQuota(owner.orgId, "api-key:write", 2);
  const run = await runExample(server.url, owner);
  expect(run.stderr).toBe("");
  expect(run.exitCode).toBe(0);
  const waits = run.stdout.split("\n").filter((line) => line.startsWith("waiting"));
  expect(waits.length).toBeGreaterThan(0);
  for (const wait of waits) {
    expect(wait).toMatch(/^waiting \d+ ms \(retry_after\) before (POST|DELETE) \/v1\/api-keys(\/key_\w+)?$/);
  }
  expect(run.stdout).toMatch(/now using key_\w+\n$/);
});

test("in a CommonJS project (npm init -y), the CommonJS example of docs/client.md runs as written", async () => {
  const server = await startRealServer();
  const owner = await server.owner();
  const run = await runExample(server.url, owner, { commonJs: true });
  expect(run.stderr).toBe("");
  expect(run.exitCode).toBe(0);
  // The owner key, listed by id and name.
  expect(run.stdout).toMatch(/^key_\w+ .+$/m);
});
