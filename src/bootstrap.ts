import type { Services } from "./app.js";
import { BOOTSTRAP_ACTOR } from "./domain/audit.js";
import { createOrganizationWithOwner } from "./services/organizations.js";

/**
 * On the first start over an empty database, creates organization `default`, its owner key and a
 * service token for the platform's services, and prints them once, as Elasticsearch prints its first
 * password. They go to the terminal, not to the JSON log, and are never shown again.
 */
export async function bootstrapFirstOrganization(
  services: Services,
  print: (text: string) => void = (text) => process.stderr.write(text),
): Promise<boolean> {
  // Under the startup lock, so that of several nodes starting together over one empty database only
  // the first creates `default`; the others then find it and do nothing.
  const created = await services.store.withStartupLock(async () => {
    if (await services.store.hasOrganizations()) return undefined;
    const first = await createOrganizationWithOwner(services, "default", BOOTSTRAP_ACTOR);
    const service = await services.serviceTokens.create("Platform services (first start)", BOOTSTRAP_ACTOR);
    return { ...first, service };
  });
  if (!created) return false;
  const { organization, owner, secret, service } = created;
  print(
    [
      "",
      "latchkey: first start, created organization 'default', its owner key and a service token.",
      "Store these credentials now: the secrets are shown only this once.",
      `  organization:  ${organization.id}`,
      `  api_id:        ${owner.apiId}`,
      `  api_key:       ${secret}`,
      `  service token: ${service.token}   (${service.record.id}; send as X-Latchkey-Service-Token)`,
      "",
      "",
    ].join("\n"),
  );
  return true;
}
