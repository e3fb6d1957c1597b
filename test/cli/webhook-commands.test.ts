import { expect, test } from "vitest";
import { startRealServer } from "../client/real-server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { cliEnv, runCli } from "./run-cli.js";

/** `latchkey webhooks ...` as separate processes against a real server and a verifying receiver. */
test(
  "create (secret once), list, test, attempts, resend, rotate-secret, update, delete",
  { timeout: 120_000 },
  async () => {
    const server = await startRealServer({
      LATCHKEY_WEBHOOKS_ALLOW_PRIVATE: "on",
      LATCHKEY_WEBHOOKS_POLL_MS: "20",
    });
    const env = cliEnv(server.url, await server.owner());
    const receiver = await startWebhookReceiver();

    const create = await runCli(
      [
        "webhooks",
        "create",
        "--endpoint-url",
        receiver.url,
        "--events",
        "api_key.created,api_key.rolled",
        "--json",
      ],
      env,
    );
    expect(create).toMatchObject({ code: 0, stderr: "" });
    const endpoint = JSON.parse(create.stdout) as { id: string; secret: string; events: string[] };
    expect(endpoint.events).toEqual(["api_key.created", "api_key.rolled"]);
    receiver.secrets.push(endpoint.secret);

    const list = await runCli(["webhooks", "list"], env);
    expect(list.stdout).toContain(endpoint.id);
    expect(list.stdout).not.toContain(endpoint.secret);

    const sent = await runCli(["webhooks", "test", endpoint.id, "--json"], env);
    const message = JSON.parse(sent.stdout) as { id: string };
    await receiver.waitFor((all) => all.some((d) => d.id === message.id));
    await expect
      .poll(async () => (await runCli(["webhooks", "attempts", endpoint.id], env)).stdout)
      .toMatch(new RegExp(`${message.id}\\s+succeeded\\s+204`));

    const resend = await runCli(["webhooks", "resend", message.id], env);
    expect(resend.stdout).toBe("queued again for 1 endpoint\n");
    await receiver.waitFor((all) => all.filter((d) => d.id === message.id).length === 2);

    const rotated = await runCli(["webhooks", "rotate-secret", endpoint.id], env);
    expect(rotated.stdout).toMatch(/^secret {2}whsec_/);

    const disabled = await runCli(["webhooks", "update", endpoint.id, "--disable", "--json"], env);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ enabled: false });
    expect((await runCli(["webhooks", "delete", endpoint.id], env)).code).toBe(0);
    const gone = await runCli(["webhooks", "get", endpoint.id], env);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain("No such webhook endpoint");

    const refused = await runCli(
      ["webhooks", "create", "--endpoint-url", receiver.url, "--events", "api_key.exploded"],
      env,
    );
    expect(refused.stderr).toContain("/events/0");
    expect(refused.code).not.toBe(0);
  },
);
