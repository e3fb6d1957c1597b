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
  if (await services.store.hasOrganizations()) return false;
  const { organization, owner, secret } = await createOrganizationWithOwner(services, "default");
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
