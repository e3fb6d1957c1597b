import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { tempDir } from "../helpers/processes.js";

const root = new URL("../../", import.meta.url).pathname;

/** The ```ts block of docs/provisioning.md: a platform's flows with the typed client. */
function provisioningExample(): string {
  const markdown = readFileSync(join(root, "docs/provisioning.md"), "utf8");
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(markdown)?.[1];
  if (!block?.includes("latchkey.admin.")) throw new Error("docs/provisioning.md has no client example");
  return block;
}

test("docs/provisioning.md: sign-up, upgrade (stacked, per-key and cost limits), top-up, recovery and offboarding run as written", async () => {
  expect(existsSync(join(root, "packages/client/dist/index.js")), "build first: npm run build").toBe(true);
  const server = await startRealServer();
  const { token } = await server.test.services.serviceTokens.create("billing", undefined, [
    "authorize",
    "provision",
  ]);
  const project = tempDir();
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "platform", type: "module" }));
  mkdirSync(join(project, "node_modules/@latchkey"), { recursive: true });
  symlinkSync(join(root, "packages/client"), join(project, "node_modules/@latchkey/client"));
  const { outputText } = ts.transpileModule(provisioningExample(), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(join(project, "flows.mjs"), outputText);
  const env = { ...process.env, LATCHKEY_URL: server.url, LATCHKEY_SERVICE_TOKEN: token };
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["flows.mjs"], { cwd: project, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toEqual([
    expect.stringMatching(/^signed up org_\S+ lkid_\S+ true$/),
    "upgraded 5000 2026-12-01T00:00:00.000Z 60 override",
    "render 10/1s 5000/3600s override",
    'batch true "render/1";r=6;t=1',
    "thumbnails 5 false",
    expect.stringMatching(/^topped up cgr_\S+ 1000$/),
    "recovered true",
    "offboarded false 403 organization_disabled",
    "kept 1",
  ]);
  // What the flows did is what the server holds.
  const [org] = (await server.test.services.provisioning.list({ count: 10 })).organizations;
  expect(org).toMatchObject({ name: "Acme Corp", externalId: "cus_1001" });
  expect(org?.disabledAt).not.toBeNull();
}, 60_000);
