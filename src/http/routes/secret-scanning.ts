import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { checkKeyIdentifier, checkSignature, type ScanningKeys } from "../../domain/github-signature.js";
import { invalidSignature, type LeakResponse } from "../../services/leak-response.js";
import { jsonBodyParser } from "../json-body-parser.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { errorResponses } from "../schemas.js";
import { LeakFeedback, LeakReportBody, SignatureHeaders } from "../secret-scanning-schemas.js";

export interface SecretScanningRouteOptions {
  /** GitHub's public keys, from LATCHKEY_SECRET_SCANNING_KEYS. */
  keys: ScanningKeys;
  leaks: LeakResponse;
}

const IDENTIFIER = "github-public-key-identifier";
const SIGNATURE = "github-public-key-signature";

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * `POST /v1/secret-scanning/github`, GitHub's secret scanning partner endpoint (docs/secret-scanning.md).
 * The signature is checked over the body's bytes as received, before they are parsed: a missing header
 * or an unknown key identifier is refused before the body is read, a bad signature before it is parsed
 * or validated. Registered only when LATCHKEY_SECRET_SCANNING_KEYS is set.
 */
export async function secretScanningRoutes(
  app: FastifyInstance,
  { keys, leaks }: SecretScanningRouteOptions,
): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  sendNoStore(routes);
  // This plugin's own JSON parser: the signature first, then the same parsing as every other body.
  const parseJson = jsonBodyParser(app);
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const check = checkSignature(
      keys,
      header(request, IDENTIFIER),
      header(request, SIGNATURE),
      body as Buffer,
    );
    if (check !== "valid") {
      done(invalidSignature(check), undefined);
      return;
    }
    parseJson(request, body, done);
  });

  routes.post(
    "/v1/secret-scanning/github",
    {
      onRequest: async (request) => {
        const check = checkKeyIdentifier(keys, header(request, IDENTIFIER), header(request, SIGNATURE));
        if (check !== "valid") throw invalidSignature(check);
      },
      schema: {
        operationId: "reportLeakedSecrets",
        summary: "Receive GitHub secret scanning reports of leaked keys",
        description:
          "GitHub's secret scanning partner endpoint. Each reported token that is the secret of a key " +
          "disables the key (LATCHKEY_LEAKED_KEYS=disable, the default) or only sets its `leaked_at` " +
          "(`flag`), and is recorded in the audit trail as `key.leaked` with its URL. Exists only when " +
          "LATCHKEY_SECRET_SCANNING_KEYS is set.",
        tags: ["Secret scanning"],
        security: [],
        headers: SignatureHeaders,
        body: LeakReportBody,
        response: {
          200: LeakFeedback,
          ...errorResponses(
            "invalid_request",
            "invalid_signature",
            "payload_too_large",
            "unsupported_media_type",
            "service_unavailable",
            "database_unavailable",
          ),
        },
      },
    },
    async (request) =>
      leaks.report(
        request.body.map((match) => ({
          token: match.token,
          type: match.type,
          url: match.url ?? "",
          source: match.source ?? "",
        })),
      ),
  );
  rejectOtherMethods(routes, "/v1/secret-scanning/github", ["POST"]);
}
