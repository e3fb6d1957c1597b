import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../../domain/clock.js";
import { type ErrorCode, LatchkeyError } from "../../domain/errors.js";
import type { SecretHandoffs } from "../../services/secret-handoffs.js";
import { userActor } from "../../domain/console-roles.js";
import {
  type EndpointCaller,
  MAX_WEBHOOK_ENDPOINTS,
  type WebhookEndpoints,
} from "../../services/webhook-endpoints.js";
import type { WebhookEndpoint } from "../../store/webhook-store.js";
import { organizationPage, type PageContext } from "../layout.js";
import { assertCanManageWebhooks, handoffSession, type Memberships, pageContext } from "../page-context.js";
import { formOf } from "../request-guard.js";
import { endpointChangeOf, endpointInputOf, webhookValuesOfSubmission } from "../webhook-form.js";
import { attemptList } from "./webhook-attempt-views.js";
import {
  endpointSecretPage,
  newWebhookForm,
  webhookDetail,
  type WebhookDetailState,
  webhookList,
} from "./webhook-views.js";

type OrgParams = { orgId: string };
type EndpointParams = { orgId: string; endpointId: string };
type MessageParams = EndpointParams & { messageId: string };

/** Attempts a page. */
const ATTEMPTS_PER_PAGE = 20;

const NOTICES: Record<string, string> = {
  saved: "Changes saved.",
  deleted: "Endpoint deleted.",
  tested: "Test event queued: it is sent within seconds. Reload to see its attempt.",
  resent: "Message queued again: it is sent within seconds. Reload to see the new attempt.",
};

/** Refusals the form shows beside itself, with what was typed; anything else is the error page's. */
const FORM_PROBLEMS: readonly ErrorCode[] = [
  "invalid_request",
  "webhook_url_not_allowed",
  "webhook_endpoint_quota_exceeded",
];
const isFormProblem = (error: unknown): error is LatchkeyError =>
  error instanceof LatchkeyError && FORM_PROBLEMS.includes(error.code);

/**
 * Webhooks (docs/webhooks.md), for owners and admins only: the organization's endpoints, create (the
 * signing secret shown once), edit, delete, rotate the secret (the new one shown once), send a test
 * event, and an endpoint's attempts with a resend per message. Every change goes through the same
 * service as `/v1/webhook-endpoints`.
 */
export async function webhookPages(
  app: FastifyInstance,
  services: {
    webhooks: WebhookEndpoints;
    users: Memberships;
    secretHandoffs: SecretHandoffs;
    clock: Clock;
  },
): Promise<void> {
  const { webhooks } = services;
  const send = (reply: FastifyReply, page: { text: string }, status = 200) =>
    reply.code(status).type("text/html").send(page.text);
  /** The organization, for an owner or admin; a member is refused (403) before anything is read. */
  const managerContext = async (request: FastifyRequest, orgId: string) => {
    const context = await pageContext(request, services.users, orgId);
    assertCanManageWebhooks(context);
    return context;
  };
  /** The endpoints' owner for the service: the organization the page acts in. */
  const ownerOf = (context: PageContext) => context.current.orgId;
  /** Who a change acts as: the organization's endpoints, audited as `user:<id>`. */
  const callerOf = (context: PageContext): EndpointCaller => ({
    owner: ownerOf(context),
    actor: userActor(context.signedIn.user.id),
  });
  const pathOf = (context: PageContext, endpointId?: string) =>
    `/console/orgs/${context.current.orgId}/webhooks${endpointId ? `/${endpointId}` : ""}`;

  app.get<{ Params: OrgParams; Querystring: { notice?: string } }>(
    "/orgs/:orgId/webhooks",
    async (request, reply) => {
      const context = await managerContext(request, request.params.orgId);
      // At most 20 endpoints: one page holds them all.
      const { endpoints } = await webhooks.list(ownerOf(context), { count: MAX_WEBHOOK_ENDPOINTS });
      const notice = NOTICES[request.query.notice ?? ""];
      return send(
        reply,
        organizationPage(context, "webhooks", "Webhooks", webhookList(context, endpoints, notice)),
      );
    },
  );

  app.get<{ Params: OrgParams }>("/orgs/:orgId/webhooks/new", async (request, reply) => {
    const context = await managerContext(request, request.params.orgId);
    return send(reply, organizationPage(context, "webhooks", "Add an endpoint", newWebhookForm(context)));
  });

  /** The secret's page after its POST: POST-redirect-GET, so a reload sends nothing again. */
  const handOver = async (
    reply: FastifyReply,
    context: PageContext,
    page: "created" | "rotated",
    endpoint: WebhookEndpoint,
  ) => {
    const id = await services.secretHandoffs.hand(handoffSession(context), {
      recordId: endpoint.id,
      secret: endpoint.secret,
    });
    return reply.redirect(`${pathOf(context, endpoint.id)}/${page}?handoff=${id}`, 303);
  };

  app.post<{ Params: OrgParams }>("/orgs/:orgId/webhooks", async (request, reply) => {
    const context = await managerContext(request, request.params.orgId);
    try {
      const endpoint = await webhooks.create(callerOf(context), endpointInputOf(formOf(request)));
      return await handOver(reply, context, "created", endpoint);
    } catch (error) {
      if (!isFormProblem(error)) throw error;
      const form = newWebhookForm(context, error.message, webhookValuesOfSubmission(formOf(request)));
      return send(reply, organizationPage(context, "webhooks", "Add an endpoint", form), error.status);
    }
  });

  // The pages a create and a rotation redirect to: the secret on the first visit, a note on any other.
  for (const [page, title] of [
    ["created", "Endpoint added"],
    ["rotated", "Secret rotated"],
  ] as const) {
    app.get<{ Params: EndpointParams; Querystring: { handoff?: string } }>(
      `/orgs/:orgId/webhooks/:endpointId/${page}`,
      async (request, reply) => {
        const context = await managerContext(request, request.params.orgId);
        const endpoint = await webhooks.get(ownerOf(context), request.params.endpointId);
        const handed = await services.secretHandoffs.take(
          handoffSession(context),
          request.query.handoff ?? "",
        );
        const own = handed?.recordId === endpoint.id ? handed : undefined;
        return send(
          reply,
          organizationPage(context, "webhooks", title, endpointSecretPage(context, endpoint, own, page)),
        );
      },
    );
  }

  const detailPage = (context: PageContext, endpoint: WebhookEndpoint, state: WebhookDetailState) =>
    organizationPage(
      context,
      "webhooks",
      "Webhook endpoint",
      webhookDetail(context, endpoint, services.clock.now(), state),
    );

  app.get<{ Params: EndpointParams; Querystring: { notice?: string } }>(
    "/orgs/:orgId/webhooks/:endpointId",
    async (request, reply) => {
      const context = await managerContext(request, request.params.orgId);
      const endpoint = await webhooks.get(ownerOf(context), request.params.endpointId);
      return send(reply, detailPage(context, endpoint, { notice: NOTICES[request.query.notice ?? ""] }));
    },
  );

  app.post<{ Params: EndpointParams }>("/orgs/:orgId/webhooks/:endpointId", async (request, reply) => {
    const context = await managerContext(request, request.params.orgId);
    const { endpointId } = request.params;
    const current = await webhooks.get(ownerOf(context), endpointId);
    try {
      await webhooks.update(callerOf(context), endpointId, endpointChangeOf(formOf(request)));
    } catch (error) {
      if (!isFormProblem(error)) throw error;
      const editProblem = { message: error.message, values: webhookValuesOfSubmission(formOf(request)) };
      return send(reply, detailPage(context, current, { editProblem }), error.status);
    }
    return reply.redirect(`${pathOf(context, endpointId)}?notice=saved`, 303);
  });

  app.post<{ Params: EndpointParams }>(
    "/orgs/:orgId/webhooks/:endpointId/rotate-secret",
    async (request, reply) => {
      const context = await managerContext(request, request.params.orgId);
      const rotated = await webhooks.rotateSecret(callerOf(context), request.params.endpointId);
      return handOver(reply, context, "rotated", rotated);
    },
  );

  app.post<{ Params: EndpointParams }>("/orgs/:orgId/webhooks/:endpointId/test", async (request, reply) => {
    const context = await managerContext(request, request.params.orgId);
    await webhooks.test(callerOf(context), request.params.endpointId);
    return reply.redirect(`${pathOf(context, request.params.endpointId)}/attempts?notice=tested`, 303);
  });

  app.post<{ Params: EndpointParams }>("/orgs/:orgId/webhooks/:endpointId/delete", async (request, reply) => {
    const context = await managerContext(request, request.params.orgId);
    await webhooks.remove(callerOf(context), request.params.endpointId);
    return reply.redirect(`${pathOf(context)}?notice=deleted`, 303);
  });

  app.get<{ Params: EndpointParams; Querystring: { page?: string; notice?: string } }>(
    "/orgs/:orgId/webhooks/:endpointId/attempts",
    async (request, reply) => {
      const context = await managerContext(request, request.params.orgId);
      const endpoint = await webhooks.get(ownerOf(context), request.params.endpointId);
      const page = await webhooks.attempts(ownerOf(context), endpoint.id, {
        count: ATTEMPTS_PER_PAGE,
        pageStart: request.query.page || undefined,
      });
      const content = attemptList(context, endpoint, page, NOTICES[request.query.notice ?? ""]);
      return send(reply, organizationPage(context, "webhooks", "Delivery attempts", content));
    },
  );

  app.post<{ Params: MessageParams }>(
    "/orgs/:orgId/webhooks/:endpointId/messages/:messageId/resend",
    async (request, reply) => {
      const context = await managerContext(request, request.params.orgId);
      const { endpointId, messageId } = request.params;
      // The endpoint first: another organization's, or none, is a 404 before anything is queued.
      const endpoint = await webhooks.get(ownerOf(context), endpointId);
      await webhooks.resend(callerOf(context), messageId, endpoint.id);
      return reply.redirect(`${pathOf(context, endpoint.id)}/attempts?notice=resent`, 303);
    },
  );
}
