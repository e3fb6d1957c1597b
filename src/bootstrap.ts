import type { Services } from "./app.js";
import { createOrganizationWithOwner } from "./services/organizations.js";

/**
 * On the first start over an empty database, creates organization `default` and its owner key and
 * prints the credentials once, as Elasticsearch prints its first password. They go to the terminal,
 * not to the JSON log, and are never shown again.
 */
export async function bootstrapFirstOrganization(
  services: Services,
  print: (text: string) => void = (text) => process.stderr.write(text),
): Promise<boolean> {
  // Under the startup lock, so that of several nodes starting together over one empty database only
  // the first creates `default`; the others then find it and do nothing.
  const created = await services.store.withStartupLock(async () =>
    (await services.store.hasOrganizations()) ? undefined : createOrganizationWithOwner(services, "default"),
  );
  if (!created) return false;
  const { organization, owner, secret } = created;
  print(
    [
      "",
      "latchkey: first start, created organization 'default' and its owner key.",
      "Store these credentials now: the secret is shown only this once.",
      `  organization: ${organization.id}`,
      `  api_id:       ${owner.apiId}`,
      `  api_key:      ${secret}`,
      "",
      "",
    ].join("\n"),
  );
  return true;
}
