import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { freePort } from "../helpers/free-port.js";
import { killOnExit } from "../helpers/kill-on-exit.js";
import { tempDir } from "../helpers/processes.js";

const root = new URL("../../", import.meta.url).pathname;

/** The ```js block of docs/webhooks.md: the Node receiver. */
function receiverExample(): string {
  const markdown = readFileSync(join(root, "docs/webhooks.md"), "utf8");
  const block = /^```js\n([\s\S]*?)^```$/m.exec(markdown)?.[1];
  if (!block?.includes("standardwebhooks")) throw new Error("docs/webhooks.md has no Node receiver");
  return block;
}

test("docs/webhooks.md: the Node receiver is 15 lines at most and verifies real deliveries as written", async () => {
  const code = receiverExample();
  expect(code.trimEnd().split("\n").length).toBeLessThanOrEqual(15);
  const project = tempDir();
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "receiver", type: "module" }));
  mkdirSync(join(project, "node_modules"), { recursive: true });
  for (const name of ["standardwebhooks", "@stablelib", "fast-sha256"]) {
    symlinkSync(join(root, "node_modules", name), join(project, "node_modules", name));
  }
  writeFileSync(join(project, "receiver.mjs"), code);

  const server = await startRealServer({
    LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
    LATCHKEY_WEBHOOKS_POLL_MS: "20",
  });
  const owner = await server.owner();
  const client = server.clientFor(owner);
  const port = await freePort();
  const endpoint = await client.webhooks.create({
    url: `http://127.0.0.1:${port}/`,
    events: ["api_key.created"],
  });
  const child = spawn(process.execPath, ["receiver.mjs"], {
    cwd: project,
    env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: endpoint.secret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killOnExit(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    const key = await client.keys.create({ name: "worker", permissions: ["images:create"] });
    await expect.poll(() => output, { timeout: 20_000 }).toMatch(/^msg_\S+ api_key\.created /);
    expect(output).toContain(`"key_id":"${key.id}"`);
    // A forged delivery is refused (400), and the receiver's answer is what latchkey records.
    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: {
        "webhook-id": "msg_x",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: "{}",
    });
    expect(forged.status).toBe(400);
    await expect
      .poll(async () => (await client.webhooks.attempts(endpoint.id)).data[0]?.response_status)
      .toBe(204);
  } finally {
    child.kill();
  }
}, 60_000);
