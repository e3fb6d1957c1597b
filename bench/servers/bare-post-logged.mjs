// The baseline of authorize: a bare Fastify POST route that parses the same JSON body as authorize
// and answers a document shaped and sized like its decision, with the access log of bare-logged.mjs
// (one line per request, through pino's asynchronous destination). latchkey's authorize over this is
// what its own work costs; this over bare.mjs is what a JSON body and one log line cost.
import { loggedFastify } from "./logged-fastify.mjs";
import { printReady, stopOnSignal } from "./ready.mjs";

const decision = {
  allowed: true,
  status: 200,
  organization_id: "org_0123456789ABCDEFabcdef",
  key: {
    id: "key_0123456789ABCDEFabcdef",
    api_id: "lkid_0123456789ABCDEFabcdef",
    permissions: ["images:create", "images:read"],
    all_future_permissions: false,
  },
  headers: {},
  error: null,
};
const body = JSON.stringify({
  authorization: "Basic bGtpZF8wMTIzNDU2Nzg5QUJDREVGYWJjZGVmOmxrc2tfMDEyMzQ1Njc4OUFCQ0RFRmFiY2RlZg==",
  permission: "images:create",
});

const { app, close } = loggedFastify("bare-post-logged");
// The body is parsed (Fastify's JSON parser) and read, as authorize's route reads it.
app.post("/v1/authorize", async (request) => {
  const { permission } = /** @type {{ permission: string }} */ (request.body);
  if (typeof permission !== "string") throw new Error("bench: no permission in the body");
  return decision;
});

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(close);
printReady(app, {
  "bare-post+log": {
    method: "POST",
    path: "/v1/authorize",
    headers: { "content-type": "application/json", "x-latchkey-service-token": "lkst_bench" },
    body,
    expectBody: '"allowed":true',
  },
});
