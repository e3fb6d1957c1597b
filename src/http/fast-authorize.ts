import type { IncomingMessage } from "node:http";
import secureJson from "secure-json-parse";
import type { AccessControl, AccessDecision } from "../services/access-decision.js";
import { SERVICE_TOKEN_HEADER, type ServiceTokenService } from "../services/service-tokens.js";
import { type AuthorizeQuestion, authorizeQuestion, decisionBody } from "./authorize-decision.js";
import type { BodyReplay } from "./body-replay.js";
import type { DecisionHandover } from "./decision-handover.js";
import type { FrontExchange, FrontRoute } from "./front-routes.js";
import { AuthorizeBody } from "./platform-schemas.js";
import { bodyValidator } from "./validator-compiler.js";

/** The route this answers, as Fastify names it (its metrics label). */
export const AUTHORIZE_ROUTE = "/v1/authorize";

/** The content types whose bodies Fastify gives its JSON parser, as platforms send them. */
const JSON_TYPES = new Set(["application/json", "application/json; charset=utf-8"]);

// Fastify's JSON parser as the app configures it (json-body-parser.ts): poisoned keys are an error.
const PARSE_OPTIONS = { protoAction: "error", constructorAction: "error" } as const;

export interface FastAuthorizeOptions {
  /** The one access decision, counted as authorize's. */
  access: AccessControl;
  serviceTokens: ServiceTokenService;
  handover: DecisionHandover;
  replay: BodyReplay;
  /** Fastify's `bodyLimit`: a longer body is Fastify's to refuse. */
  bodyLimit: number;
}

/** The body's length when it is one Fastify would read whole and parse as JSON; undefined otherwise. */
function plainJsonLength(request: IncomingMessage, bodyLimit: number): number | undefined {
  const { headers } = request;
  if (!JSON_TYPES.has(headers["content-type"]?.toLowerCase() ?? "")) return undefined;
  if (headers["transfer-encoding"] !== undefined || headers["content-encoding"] !== undefined)
    return undefined;
  const length = Number(headers["content-length"]);
  return Number.isInteger(length) && length > 0 && length <= bodyLimit ? length : undefined;
}

/** The whole body, or undefined when the client went away before sending it. */
function readBody(request: IncomingMessage, length: number): Promise<Buffer | undefined> | Buffer {
  // A small body usually comes in the packet of its headers, and Node's parser has buffered all of it
  // (`length` bytes, which it enforces) before the request reaches us: take it without stream events.
  if (request.readableLength === length) return request.read(length) as Buffer;
  // Gone while its token was checked: its `close` has been and will not come again.
  if (request.destroyed) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", () => resolve(undefined));
    request.on("close", () => resolve(undefined));
  });
}

/**
 * `POST /v1/authorize` answered in front of Fastify (front-routes.ts) when the service token and the
 * body are valid: the same checks, the same access decision, the same bytes as the route's. Anything
 * the route would refuse (a bad token, a body that does not parse or validate) is handed to Fastify,
 * with the body it read, to be answered by the route as before; a decision that throws is handed over
 * as its failure. A request is never decided twice: that would take two rate-limit slots and credits.
 */
export function fastAuthorize(options: FastAuthorizeOptions): FrontRoute {
  const { access, serviceTokens, handover, replay, bodyLimit } = options;
  const validBody = bodyValidator(AuthorizeBody);

  /** The question in the body, or undefined where the route answers 400. */
  function questionIn(body: Buffer): AuthorizeQuestion | undefined {
    try {
      const parsed: unknown = secureJson.parse(body.toString("utf8"), undefined, PARSE_OPTIONS);
      return validBody(parsed) ? authorizeQuestion(parsed as AuthorizeBody) : undefined;
    } catch {
      return undefined;
    }
  }

  async function answer(exchange: FrontExchange, length: number): Promise<void> {
    const { request, response, fastify } = exchange;
    try {
      await serviceTokens.verify(request.headers[SERVICE_TOKEN_HEADER], request.socket);
    } catch {
      // Before the body is read: the route's guard checks the token again and answers the 401.
      return fastify(request, response);
    }
    const body = await readBody(request, length);
    if (!body) return void response.destroy();
    const question = questionIn(body);
    if (!question) {
      replay.keep(request, body);
      return fastify(request, response);
    }
    let decision: AccessDecision;
    try {
      decision = await access.decide(question.request);
    } catch (failure) {
      handover.give(request, { failure });
      replay.keep(request, body);
      return fastify(request, response);
    }
    exchange.ok(decisionBody(decision, question.protocol));
  }

  return {
    method: "POST",
    route: AUTHORIZE_ROUTE,
    match(request) {
      if (request.url !== AUTHORIZE_ROUTE) return undefined;
      const length = plainJsonLength(request, bodyLimit);
      return length === undefined ? undefined : (exchange) => answer(exchange, length);
    },
  };
}
