import type { FastifyInstance, FastifyReply } from "fastify";
import type { Services } from "../../app.js";
import { LatchkeyError } from "../../domain/errors.js";
import type { KeyConfigurationInput } from "../../domain/key-configuration.js";
import { isPermission } from "../../domain/permissions.js";
import type { ApiKeyRecord } from "../../store/key-store.js";
import { organizationPage } from "../layout.js";
import { assertCanManageKeys, consoleCaller, pageContext } from "../page-context.js";
import { formOf } from "../request-guard.js";
import { createdKey, keyDetail, keyList, newKeyForm } from "./key-views.js";

type OrgParams = { orgId: string };
type KeyParams = { orgId: string; keyId: string };

/** A submitted key form as the key service's input: the same rules as REST apply from here on. */
function keyInput(form: URLSearchParams, withDisabled: boolean): KeyConfigurationInput {
  const allFuture = form.get("all_future_permissions") === "true";
  return {
    name: form.get("name"),
    description: form.get("description"),
    permissions: allFuture ? [] : form.getAll("permissions"),
    all_future_permissions: allFuture,
    ...(withDisabled ? { disabled: form.get("disabled") === "true" } : {}),
  };
}

/** Every key of the organization, newest first, through the service's pages (at most the key quota). */
async function allKeys(
  services: Services,
  caller: ReturnType<typeof consoleCaller>,
  includeDisabled: boolean,
  permission: string,
) {
  const keys: ApiKeyRecord[] = [];
  let pageStart: string | undefined;
  do {
    const page = await services.keys.list(caller, {
      count: 100,
      pageStart,
      includeDisabled,
      withPermission: isPermission(permission) ? [permission] : [],
    });
    keys.push(...page.keys);
    pageStart = page.nextPageStart ?? undefined;
  } while (pageStart !== undefined);
  return keys;
}

/** The keys pages: list with filters, create (secret shown once), edit, disable. */
export async function keyPages(app: FastifyInstance, services: Services): Promise<void> {
  const store = services.consoleStore;
  const send = (reply: FastifyReply, page: { text: string }, status = 200) =>
    reply.code(status).type("text/html").send(page.text);

  app.get<{
    Params: OrgParams;
    Querystring: { q?: string; include_disabled?: string; permission?: string; notice?: string };
  }>("/orgs/:orgId/keys", async (request, reply) => {
    const context = await pageContext(request, store, request.params.orgId);
    const filters = {
      q: request.query.q ?? "",
      includeDisabled: request.query.include_disabled === "true",
      permission: request.query.permission ?? "",
    };
    const keys = (
      await allKeys(services, consoleCaller(context), filters.includeDisabled, filters.permission)
    ).filter((key) => key.name.toLowerCase().includes(filters.q.trim().toLowerCase()));
    const notice = request.query.notice === "disabled" ? "Key disabled." : undefined;
    return send(reply, organizationPage(context, "keys", "Keys", keyList(context, keys, filters, notice)));
  });

  app.get<{ Params: OrgParams }>("/orgs/:orgId/keys/new", async (request, reply) => {
    const context = await pageContext(request, store, request.params.orgId);
    assertCanManageKeys(context);
    return send(reply, organizationPage(context, "keys", "Create a key", newKeyForm(context)));
  });

  app.post<{ Params: OrgParams }>("/orgs/:orgId/keys", async (request, reply) => {
    const context = await pageContext(request, store, request.params.orgId);
    assertCanManageKeys(context);
    try {
      const { key, secret } = await services.keys.create(
        consoleCaller(context),
        keyInput(formOf(request), false),
      );
      return send(
        reply,
        organizationPage(context, "keys", "Key created", createdKey(context, key, secret)),
        201,
      );
    } catch (error) {
      if (!(error instanceof LatchkeyError) || error.code !== "invalid_request") throw error;
      return send(
        reply,
        organizationPage(context, "keys", "Create a key", newKeyForm(context, error.message)),
        400,
      );
    }
  });

  app.get<{ Params: KeyParams; Querystring: { saved?: string } }>(
    "/orgs/:orgId/keys/:keyId",
    async (request, reply) => {
      const context = await pageContext(request, store, request.params.orgId);
      const key = await services.keys.get(consoleCaller(context), request.params.keyId);
      const notice = request.query.saved === "1" ? "Changes saved." : undefined;
      return send(reply, organizationPage(context, "keys", key.name, keyDetail(context, key, notice)));
    },
  );

  app.post<{ Params: KeyParams }>("/orgs/:orgId/keys/:keyId", async (request, reply) => {
    const context = await pageContext(request, store, request.params.orgId);
    assertCanManageKeys(context);
    const { orgId, keyId } = request.params;
    await services.keys.update(consoleCaller(context), keyId, keyInput(formOf(request), true));
    return reply.redirect(`/console/orgs/${orgId}/keys/${keyId}?saved=1`, 303);
  });

  app.post<{ Params: KeyParams }>("/orgs/:orgId/keys/:keyId/disable", async (request, reply) => {
    const context = await pageContext(request, store, request.params.orgId);
    assertCanManageKeys(context);
    await services.keys.disable(consoleCaller(context), request.params.keyId);
    return reply.redirect(`/console/orgs/${request.params.orgId}/keys?notice=disabled`, 303);
  });
}
