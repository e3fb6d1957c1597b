import { expect, test } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { cliEnv, runCli } from "./run-cli.js";

test("keys create and update --rate-limit set a key's own windows; --remove-rate-limit drops them", async () => {
  const server = await startRealServer();
  await server.test.services.groups.put(
    "thumbnails",
    {
      policies: [
        { quota: 60, windowSeconds: 60 },
        { quota: 1000, windowSeconds: 3600 },
      ],
      per: "key",
    },
    "test",
  );
  await server.test.services.groups.put(
    "render",
    { policies: [{ quota: 10, windowSeconds: 1 }], per: "key" },
    "test",
  );
  const env = cliEnv(server.url, await server.owner());
  const create = await runCli(
    ["keys", "create", "--permission", "images:create", "--rate-limit", "thumbnails=5/60,500/3600", "--json"],
    env,
  );
  expect(create).toMatchObject({ code: 0, stderr: "" });
  const created = JSON.parse(create.stdout);
  expect(created.rate_limits).toEqual({
    thumbnails: {
      policies: [
        { quota: 5, window_seconds: 60 },
        { quota: 500, window_seconds: 3600 },
      ],
    },
  });

  // Another group is added, the first kept; the person-readable record shows both.
  const added = await runCli(["keys", "update", created.id, "--rate-limit", "render=2/1"], env);
  expect(added.code).toBe(0);
  expect(added.stdout).toMatch(/rate limits:\s+thumbnails=5\/60,500\/3600; render=2\/1/);

  // Above the organization's policy: the server's 400, naming the group, and nothing changed.
  const refused = await runCli(["keys", "update", created.id, "--rate-limit", "render=20/1"], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain("rate_limits");
  const removed = await runCli(
    [
      "keys",
      "update",
      created.id,
      "--remove-rate-limit",
      "render",
      "--remove-rate-limit",
      "thumbnails",
      "--json",
    ],
    env,
  );
  expect(JSON.parse(removed.stdout)).not.toHaveProperty("rate_limits");

  const bad = await runCli(
    ["keys", "create", "--permission", "images:create", "--rate-limit", "thumbnails=5"],
    env,
  );
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain("--rate-limit takes <group>=<quota>/<seconds>");
}, 60_000);
