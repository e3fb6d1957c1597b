import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { freePort } from "../helpers/redis-server.js";
import { startServer, tempDir } from "../helpers/processes.js";
import { curlExamples } from "./markdown-examples.js";

const root = new URL("../../", import.meta.url).pathname;
const wrapper = new URL("./curl-wrapper.sh", import.meta.url).pathname;
const documents = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/**
 * Every curl of the README and docs/ runs against a live server, so the documentation cannot rot: each
 * file's examples run in order in one shell (later blocks use what earlier ones stored), against a
 * fresh server of its own, with the owner key as $AUTH, the service token as $ST and the example route
 * table. A block answers 2xx unless it says otherwise (```sh expect=403).
 */
describe("documentation examples", () => {
  test("the docs have runnable curl examples", () => {
    const total = documents.reduce((sum, file) => sum + curlExamples(read(file)).length, 0);
    expect(total).toBeGreaterThan(10);
  });

  for (const file of documents) {
    const examples = curlExamples(read(file));
    if (examples.length === 0) continue;
    test(`every curl example of ${file} works as written`, async () => {
      const dir = tempDir();
      const server = await startServer(
        {
          LATCHKEY_DATABASE_URL: `sqlite:${join(dir, "latchkey.db")}`,
          LATCHKEY_ROUTES: join(root, "examples/routes.json"),
        },
        await freePort(),
      );
      const printed = server.stderr();
      const log = join(dir, "curl.log");
      const script = [
        "set -euo pipefail",
        `source ${JSON.stringify(wrapper)}`,
        ...examples.map((example) =>
          [`# ${file}:${example.line}`, `export DOCS_EXPECT=${example.expect}`, example.script].join("\n"),
        ),
      ].join("\n");
      writeFileSync(join(dir, "examples.sh"), script);
      const run = spawnSync("bash", [join(dir, "examples.sh")], {
        cwd: dir,
        encoding: "utf8",
        timeout: 60_000,
        env: {
          ...process.env,
          LK: server.baseUrl,
          AUTH: `${field(printed, "api_id")}:${field(printed, "api_key")}`,
          ST: field(printed, "service token"),
          DOCS_CURL_LOG: log,
        },
      });
      const calls = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
      expect(run.status, `${file}: ${run.stderr}\n${calls.join("\n")}`).toBe(0);
      expect(calls.length).toBeGreaterThanOrEqual(examples.length);
    });
  }
});

function read(file: string): string {
  return readFileSync(join(root, file), "utf8");
}

/** A value of the first start's printout, e.g. `api_id:        lkid_...`. */
function field(printed: string, name: string): string {
  const value = new RegExp(`${name}:\\s+(\\S+)`).exec(printed)?.[1];
  if (!value) throw new Error(`the first start printed no ${name}: ${printed}`);
  return value;
}
