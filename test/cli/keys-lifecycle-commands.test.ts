import { expect, test } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { cliEnv, runCli } from "./run-cli.js";

test("keys create --expires-at, update --expires-at (forward only) and keys roll, end to end", async () => {
  const server = await startRealServer();
  const env = cliEnv(server.url, await server.owner());
  const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const sooner = new Date(Date.now() + 7 * 86_400_000).toISOString();

  const create = await runCli(
    ["keys", "create", "--permission", "api_keys:read", "--expires-at", later, "--json"],
    env,
  );
  expect(create.code).toBe(0);
  const created = JSON.parse(create.stdout);
  expect(created).toMatchObject({ expires_at: later, expired: false });

  const renamed = await runCli(["keys", "update", created.id, "--name", "renamed", "--json"], env);
  expect(JSON.parse(renamed.stdout)).toMatchObject({ name: "renamed", expires_at: later });
  const forward = await runCli(["keys", "update", created.id, "--expires-at", sooner, "--json"], env);
  expect(JSON.parse(forward.stdout)).toMatchObject({ expires_at: sooner });
  const back = await runCli(["keys", "update", created.id, "--expires-at", later], env);
  expect(back.code).not.toBe(0);
  expect(back.stderr).toContain("an expiry can only be brought forward");

  const roll = await runCli(["keys", "roll", created.id, "--overlap", "600", "--json"], env);
  expect(roll.code).toBe(0);
  const rolled = JSON.parse(roll.stdout);
  expect(rolled).toMatchObject({ id: created.id, api_id: created.api_id, expires_at: sooner });
  expect(rolled.api_key).not.toBe(created.api_key);
  expect(roll.stderr).toContain(`works until ${rolled.previous_secret_expires_at}`);
  const asOld = cliEnv(server.url, { apiId: created.api_id, secret: created.api_key });
  const asNew = cliEnv(server.url, { apiId: created.api_id, secret: rolled.api_key });
  expect((await runCli(["keys", "get", created.id], asOld)).code).toBe(0);
  expect((await runCli(["keys", "get", created.id], asNew)).code).toBe(0);

  const tooLong = await runCli(["keys", "roll", created.id, "--overlap", "604801"], env);
  expect(tooLong.code).not.toBe(0);
  expect(tooLong.stderr).toContain("604800");
});
