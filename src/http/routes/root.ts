import type { FastifyInstance } from "fastify";
import { packageVersion } from "../../version.js";

/** latchkey's mark: a key's bow and blade in the console's accent, legible at 16 px. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#0172ad"/>
<circle cx="11" cy="16" r="6" fill="none" stroke="#fff" stroke-width="3"/>
<path d="M17 16h11M24 16v5M28 16v4" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/>
</svg>
`;

const DAY_SECONDS = 86_400;

/**
 * `GET /`: where to go from the address the start line prints. A browser is sent to the console (or to
 * the API reference when the console is off); a program gets the same links as JSON. Also the
 * favicon, which browsers ask for at `/favicon.ico` on every page that names none.
 */
export async function rootRoutes(app: FastifyInstance, { console }: { console: boolean }): Promise<void> {
  const links = {
    ...(console ? { console: "/console" } : {}),
    api: "/v1",
    docs: "/docs",
    openapi: "/openapi.json",
    mcp: "/mcp",
    health: "/healthz",
    readiness: "/readyz",
  };
  app.get("/", { schema: { hide: true } }, async (request, reply) => {
    if (/\btext\/html\b/.test(request.headers.accept ?? "")) {
      return reply.redirect(console ? "/console" : "/docs", 302);
    }
    return { name: "latchkey", version: packageVersion(), links };
  });
  for (const path of ["/favicon.ico", "/favicon.svg"]) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.header("Cache-Control", `public, max-age=${DAY_SECONDS}`).type("image/svg+xml").send(FAVICON_SVG),
    );
  }
}
