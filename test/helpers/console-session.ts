import type { FastifyInstance, LightMyRequestResponse as Response } from "fastify";
import { expect } from "vitest";
import type { TestApp } from "./build-test-app.js";

export const CONSOLE_PASSWORD = "correct horse battery staple";
/** The origin `app.inject` requests have (its default Host is localhost:80). */
export const ORIGIN = "http://localhost:80";

/** A console user of `role` in `orgId`, created as the operator would. */
export async function consoleUser(
  testApp: TestApp,
  orgId: string,
  role: string,
  email = `${role}@example.com`,
) {
  const { user } = await testApp.services.consoleUsers.add({
    email,
    password: CONSOLE_PASSWORD,
    orgId,
    role,
  });
  return user;
}

/** A form body as a browser sends it. */
export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
  }
  return params.toString();
}

/** A signed-in browser, as far as `app.inject` can be one: the cookie, and the CSRF token of the pages. */
export interface ConsoleBrowser {
  cookie: string;
  csrf: string;
  get(url: string): Promise<Response>;
  /** The page a redirect (a POST's 303) sends the browser to, asked for as the browser does. */
  follow(redirect: Response): Promise<Response>;
  post(
    url: string,
    fields: Record<string, string | string[]>,
    headers?: Record<string, string>,
  ): Promise<Response>;
}

export async function signIn(
  app: FastifyInstance,
  email: string,
  password = CONSOLE_PASSWORD,
): Promise<ConsoleBrowser> {
  const response = await app.inject({
    method: "POST",
    url: "/console/sign-in",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
    payload: form({ email, password }),
  });
  expect(response.statusCode).toBe(303);
  const cookie = String(response.headers["set-cookie"]).split(";")[0] ?? "";
  const page = await app.inject({ method: "GET", url: "/console/", headers: { cookie } });
  const landing = await app.inject({
    method: "GET",
    url: String(page.headers.location ?? "/console/"),
    headers: { cookie },
  });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(landing.body)?.[1] ?? "";
  expect(csrf).not.toBe("");
  return {
    cookie,
    csrf,
    get: (url) => app.inject({ method: "GET", url, headers: { cookie } }),
    follow: (redirect) => {
      expect(redirect.statusCode, redirect.body).toBe(303);
      return app.inject({ method: "GET", url: String(redirect.headers.location), headers: { cookie } });
    },
    post: (url, fields, headers = {}) =>
      app.inject({
        method: "POST",
        url,
        headers: { cookie, "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...headers },
        payload: form({ _csrf: csrf, ...fields }),
      }),
  };
}
