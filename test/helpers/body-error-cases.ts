import { expect, test } from "vitest";
import { ownerApp, type TestKey } from "./build-test-app.js";

/** The documented error body (docs/troubleshooting.md): status, phrase, code and a message. */
export function expectErrorBody(
  body: Record<string, unknown>,
  statusCode: number,
  error: string,
  code: string,
): void {
  expect(body).toMatchObject({ statusCode, error, code });
  expect(typeof body.message).toBe("string");
  expect(String(body.message).length).toBeGreaterThan(0);
}

/** A create-and-update family of routes, for the cases every JSON body route must answer alike. */
export interface BodyRoutes {
  /** The create path, e.g. `/v1/api-keys`. */
  createPath: string;
  /** An update path of the caller's organization (the record need not exist: the body is refused first). */
  updatePath: (owner: TestKey) => string;
  /** A valid body made larger than the 64 KiB body limit. */
  oversizedBody: Record<string, unknown>;
}

/**
 * The rows of the error table that depend only on the body's shape, declared as tests in the calling
 * describe block: not JSON, not an object, missing, too large (413), not JSON at all (415).
 */
export function bodyShapeCases({ createPath, updatePath, oversizedBody }: BodyRoutes): void {
  test("a body that is not valid JSON is 400", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "POST",
      url: createPath,
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expectErrorBody(response.json(), 400, "Bad Request", "invalid_request");
  });

  test.each([
    ["an array", []],
    ["a string", "hello"],
    ["null", null],
  ])("a body that is %s instead of an object is 400", async (_label, payload) => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "POST",
      url: createPath,
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: JSON.stringify(payload),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe("invalid_request");
  });

  test("a create without a body is 400 saying a body is needed", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({ method: "POST", url: createPath, headers: owner.headers });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain("needs a body");
  });

  test("a body over the size limit is 413 payload_too_large", async () => {
    const { app, owner } = await ownerApp();
    const response = await app.inject({
      method: "POST",
      url: createPath,
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: JSON.stringify(oversizedBody),
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers["cache-control"]).toBe("no-store");
    expectErrorBody(response.json(), 413, "Payload Too Large", "payload_too_large");
  });

  test.each([
    ["text/plain", "name=x"],
    ["application/x-www-form-urlencoded", "name=x"],
    ["application/xml", "<name/>"],
  ])("a %s body is 415 unsupported_media_type, on create and update", async (contentType, payload) => {
    const { app, owner } = await ownerApp();
    for (const url of [createPath, updatePath(owner)]) {
      const response = await app.inject({
        method: "POST",
        url,
        headers: { ...owner.headers, "content-type": contentType },
        payload,
      });
      expect(response.statusCode).toBe(415);
      expect(response.headers["cache-control"]).toBe("no-store");
      expectErrorBody(response.json(), 415, "Unsupported Media Type", "unsupported_media_type");
    }
  });
}
