import { LatchkeyClient } from "@latchkey/client";
import { UsageError } from "./exit-codes.js";

/**
 * The client of an operator command run with `--url` (docs/cli.md): the provisioning API of a running
 * server instead of the database beside it, as the service token in LATCHKEY_SERVICE_TOKEN (it needs
 * the `provision` scope). The environment is read here, not in `src/config.ts`: it is a client's
 * credential, not server configuration.
 */
export function adminClient(url: string, env: NodeJS.ProcessEnv = process.env): LatchkeyClient {
  const serviceToken = env.LATCHKEY_SERVICE_TOKEN;
  if (!serviceToken) {
    throw new UsageError("--url needs LATCHKEY_SERVICE_TOKEN: a service token with the provision scope.");
  }
  try {
    return new LatchkeyClient({ baseUrl: url, serviceToken });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
