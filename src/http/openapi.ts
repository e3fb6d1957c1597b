import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

/** Publishes the route schemas as OpenAPI 3.1 at `/openapi.json` and a browsable reference at `/docs`. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "latchkey",
        version: "1",
        description: "API-key management with exact per-organization management rate limits.",
      },
      components: {
        securitySchemes: {
          basicAuth: { type: "http", scheme: "basic" },
          serviceToken: { type: "apiKey", in: "header", name: "X-Latchkey-Service-Token" },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
