import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, onTestFinished, test } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

/** What `npm pack --json` says of one tarball. */
interface PackReport {
  filename: string;
  files: { path: string }[];
}

/**
 * A program of the consuming project: a `node:http` route protected by the guard, whose client asks a
 * stand-in for latchkey (its `fetch` option), called once.
 */
const CONSUMER = `
import { createServer } from "node:http";
import { LatchkeyClient } from "@latchkey/client";
import { latchkeyNodeGuard } from "@latchkey/client/guard";

const key = { id: "key_1", api_id: "lkid_1", permissions: ["images:create"], all_future_permissions: false };
const decision = { allowed: true, status: 200, organization_id: "org_1", key, headers: {}, error: null };
const client = new LatchkeyClient({
  baseUrl: "http://latchkey.invalid",
  serviceToken: "lkst_example",
  fetch: async () => new Response(JSON.stringify(decision), { headers: { "content-type": "application/json" } }),
});
const guard = latchkeyNodeGuard({ client, permission: "images:create" });
const server = createServer(async (req, res) => {
  const allowed = await guard(req, res);
  if (allowed) res.end("made an image for " + allowed.organization_id);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const response = await fetch("http://127.0.0.1:" + server.address().port + "/", {
  headers: { authorization: "Basic eDp5" },
});
console.log(JSON.stringify({ status: response.status, body: await response.text() }));
server.close();
`;

test("the client package installs from its tarball offline, alone, and works in another project", async () => {
  // Packs the build that `npm test` made (--ignore-scripts: the package's prepack would rebuild dist/
  // while other test files run the CLI on it).
  expect(existsSync(join(root, "packages/client/dist/index.js")), "build first: npm run build").toBe(true);
  const dir = await mkdtemp(join(tmpdir(), "latchkey-client-install-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const packed = await run(
    "npm",
    ["pack", "-w", "packages/client", "--ignore-scripts", "--json", "--pack-destination", dir],
    { cwd: root, timeout: 60_000 },
  );
  const [report] = JSON.parse(packed.stdout) as PackReport[];
  const shipped = (report?.files ?? []).map((file) => file.path);
  expect(shipped).toEqual(
    expect.arrayContaining([
      "package.json",
      "README.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/guard/index.js",
    ]),
  );
  // Only the built package: no source, no tests, no server.
  expect(
    shipped.filter((path) => !/^(dist\/.*\.(js|d\.ts)|package\.json|README\.md|LICENSE)$/.test(path)),
  ).toEqual([]);

  const project = join(dir, "project");
  await mkdir(project);
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // --offline: a package without dependencies needs nothing from a registry.
  await run(
    "npm",
    [
      "install",
      join(dir, report?.filename ?? ""),
      "--offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    { cwd: project, timeout: 60_000 },
  );
  const lock = JSON.parse(await readFile(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  const installed = Object.keys(lock.packages).filter((path) => path !== "");
  expect(installed).toEqual(["node_modules/@latchkey/client"]);
  const topLevel = (await readdir(join(project, "node_modules"))).filter((name) => !name.startsWith("."));
  expect(topLevel).toEqual(["@latchkey"]);

  await writeFile(join(project, "consumer.mjs"), CONSUMER);
  const consumer = await run(process.execPath, ["consumer.mjs"], { cwd: project, timeout: 10_000 });
  expect(JSON.parse(consumer.stdout)).toEqual({ status: 200, body: "made an image for org_1" });
}, 120_000);
