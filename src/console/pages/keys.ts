import type { FastifyInstance, FastifyReply } from "fastify";
import { LatchkeyError } from "../../domain/errors.js";
import { isPermission } from "../../domain/permissions.js";
import type { ApiKeyRecord } from "../../store/key-store.js";
import { organizationPage, type PageContext } from "../layout.js";
import type { HandedSecret, SecretHandoffs } from "../../services/secret-handoffs.js";
import {
  assertCanManageKeys,
  consoleCaller,
  handoffSession,
  type Memberships,
  pageContext,
} from "../page-context.js";
import { formValuesOfSubmission, keyInputOf, metadataFilterOf, rollInputOf } from "../key-form.js";
import { formOf } from "../request-guard.js";
import { rolledKey } from "./key-lifecycle-views.js";
import { createdKey, type KeyDetailState, keyDetail, keyList, newKeyForm } from "./key-views.js";
import type { Clock } from "../../domain/clock.js";
import type { KeyService } from "../../services/key-service.js";

type OrgParams = { orgId: string };
type KeyParams = { orgId: string; keyId: string };

/** Every key of the organization, newest first, through the service's pages (at most the key quota). */
async function allKeys(
  service: KeyService,
  caller: ReturnType<typeof consoleCaller>,
  includeDisabled: boolean,
  permission: string,
  namePrefix: string,
  withMetadata: Record<string, string> | undefined,
) {
  const keys: ApiKeyRecord[] = [];
  let pageStart: string | undefined;
  do {
    const page = await service.list(caller, {
      count: 100,
      pageStart,
      includeDisabled,
      withPermission: isPermission(permission) ? [permission] : [],
      namePrefix: namePrefix === "" ? undefined : namePrefix,
      withMetadata,
    });
    keys.push(...page.keys);
    pageStart = page.nextPageStart ?? undefined;
  } while (pageStart !== undefined);
  return keys;
}

/** A refusal the form shows beside itself (a bad value); anything else is the error page's. */
const isFormProblem = (error: unknown): error is LatchkeyError =>
  error instanceof LatchkeyError && error.code === "invalid_request";

/** The keys pages: list with filters, create (secret shown once), edit, roll (new secret shown once), disable. */
export async function keyPages(
  app: FastifyInstance,
  services: { keys: KeyService; users: Memberships; clock: Clock; secretHandoffs: SecretHandoffs },
): Promise<void> {
  const send = (reply: FastifyReply, page: { text: string }, status = 200) =>
    reply.code(status).type("text/html").send(page.text);

  app.get<{
    Params: OrgParams;
    Querystring: {
      name_prefix?: string;
      metadata?: string;
      include_disabled?: string;
      permission?: string;
      notice?: string;
    };
  }>("/orgs/:orgId/keys", async (request, reply) => {
    const context = await pageContext(request, services.users, request.params.orgId);
    const filters = {
      namePrefix: String(request.query.name_prefix ?? ""),
      metadata: String(request.query.metadata ?? ""),
      includeDisabled: request.query.include_disabled === "true",
      permission: String(request.query.permission ?? ""),
    };
    const notice = request.query.notice === "disabled" ? "Key disabled." : undefined;
    const list = (keys: ApiKeyRecord[], problem?: string) =>
      organizationPage(
        context,
        "keys",
        "Keys",
        keyList(context, keys, filters, services.clock.now(), notice, problem),
      );
    let withMetadata: Record<string, string> | undefined;
    try {
      withMetadata = metadataFilterOf(filters.metadata);
    } catch (error) {
      if (!isFormProblem(error)) throw error;
      return send(reply, list([], error.message), 400);
    }
    const keys = await allKeys(
      services.keys,
      consoleCaller(context),
      filters.includeDisabled,
      filters.permission,
      filters.namePrefix,
      withMetadata,
    );
    return send(reply, list(keys));
  });

  app.get<{ Params: OrgParams }>("/orgs/:orgId/keys/new", async (request, reply) => {
    const context = await pageContext(request, services.users, request.params.orgId);
    assertCanManageKeys(context);
    return send(reply, organizationPage(context, "keys", "Create a key", newKeyForm(context)));
  });

  /** The secret's page after its POST: POST-redirect-GET, so a reload sends nothing again. */
  const handOver = async (
    reply: FastifyReply,
    context: PageContext,
    page: "created" | "rolled",
    secret: HandedSecret,
  ) => {
    const id = await services.secretHandoffs.hand(handoffSession(context), secret);
    // The id opens nothing by itself: the secret is sealed for this session's cookie (secret-handoffs.ts).
    const url = `/console/orgs/${context.current.orgId}/keys/${secret.recordId}/${page}?handoff=${id}`;
    return reply.redirect(url, 303);
  };
  /** The secret handed to this session for this key, once; undefined on a reload or in another tab. */
  const takeSecret = async (context: PageContext, keyId: string, id: string | undefined) => {
    const handed = await services.secretHandoffs.take(handoffSession(context), id ?? "");
    return handed?.recordId === keyId ? handed : undefined;
  };

  app.post<{ Params: OrgParams }>("/orgs/:orgId/keys", async (request, reply) => {
    const context = await pageContext(request, services.users, request.params.orgId);
    assertCanManageKeys(context);
    try {
      const { key, secret } = await services.keys.create(consoleCaller(context), keyInputOf(formOf(request)));
      return await handOver(reply, context, "created", { recordId: key.id, secret });
    } catch (error) {
      if (!isFormProblem(error)) throw error;
      const form = newKeyForm(context, error.message, formValuesOfSubmission(formOf(request)));
      return send(reply, organizationPage(context, "keys", "Create a key", form), 400);
    }
  });

  // The pages a create and a roll redirect to: the secret on the first visit, a note on any other.
  for (const [page, title, view] of [
    ["created", "Key created", createdKey],
    ["rolled", "Key rolled", rolledKey],
  ] as const) {
    app.get<{ Params: KeyParams; Querystring: { handoff?: string } }>(
      `/orgs/:orgId/keys/:keyId/${page}`,
      async (request, reply) => {
        const context = await pageContext(request, services.users, request.params.orgId);
        const key = await services.keys.get(consoleCaller(context), request.params.keyId);
        const handed = await takeSecret(context, key.id, request.query.handoff);
        return send(reply, organizationPage(context, "keys", title, view(context, key, handed)));
      },
    );
  }

  app.get<{ Params: KeyParams; Querystring: { saved?: string } }>(
    "/orgs/:orgId/keys/:keyId",
    async (request, reply) => {
      const context = await pageContext(request, services.users, request.params.orgId);
      const key = await services.keys.get(consoleCaller(context), request.params.keyId);
      const notice = request.query.saved === "1" ? "Changes saved." : undefined;
      return send(reply, detailPage(context, key, { notice }));
    },
  );

  const detailPage = (context: Parameters<typeof keyDetail>[0], key: ApiKeyRecord, state: KeyDetailState) =>
    organizationPage(context, "keys", key.name, keyDetail(context, key, services.clock.now(), state));

  app.post<{ Params: KeyParams }>("/orgs/:orgId/keys/:keyId", async (request, reply) => {
    const context = await pageContext(request, services.users, request.params.orgId);
    assertCanManageKeys(context);
    const { orgId, keyId } = request.params;
    const caller = consoleCaller(context);
    // The form was shown with the key's expiry: sent back unchanged, it keeps it (not a new request).
    const current = await services.keys.get(caller, keyId);
    try {
      await services.keys.update(caller, keyId, keyInputOf(formOf(request), current));
    } catch (error) {
      if (!isFormProblem(error)) throw error;
      const editProblem = { message: error.message, values: formValuesOfSubmission(formOf(request)) };
      return send(reply, detailPage(context, current, { editProblem }), 400);
    }
    return reply.redirect(`/console/orgs/${orgId}/keys/${keyId}?saved=1`, 303);
  });

  app.post<{ Params: KeyParams }>("/orgs/:orgId/keys/:keyId/roll", async (request, reply) => {
    const context = await pageContext(request, services.users, request.params.orgId);
    assertCanManageKeys(context);
    const caller = consoleCaller(context);
    const { keyId } = request.params;
    try {
      const { key, secret, previousSecretExpiresAt } = await services.keys.roll(
        caller,
        keyId,
        rollInputOf(formOf(request)),
      );
      return await handOver(reply, context, "rolled", { recordId: key.id, secret, previousSecretExpiresAt });
    } catch (error) {
      if (!isFormProblem(error)) throw error;
      const rollProblem = { message: error.message, overlap: formOf(request).get("overlap_seconds") ?? "" };
      return send(reply, detailPage(context, await services.keys.get(caller, keyId), { rollProblem }), 400);
    }
  });

  app.post<{ Params: KeyParams }>("/orgs/:orgId/keys/:keyId/disable", async (request, reply) => {
    const context = await pageContext(request, services.users, request.params.orgId);
    assertCanManageKeys(context);
    await services.keys.disable(consoleCaller(context), request.params.keyId);
    return reply.redirect(`/console/orgs/${request.params.orgId}/keys?notice=disabled`, 303);
  });
}
