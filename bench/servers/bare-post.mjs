// The baseline of the platform benchmark: a bare Fastify 5 POST route that parses a JSON body and
// returns a constant document shaped and sized like an authorize decision. No logger, hooks or schema.
import Fastify from "fastify";
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
  headers: { "x-renders-allowed": "1000000000", "x-renders-consumed": "1", "x-renders-used": "1" },
  error: null,
};

const app = Fastify({ logger: false });
app.post("/v1/authorize", async () => decision);
const body = JSON.stringify({
  authorization: "Basic bGtpZF8wMTIzNDU2Nzg5QUJDREVGYWJjZGVmOmxrc2tfMDEyMzQ1Njc4OUFCQ0RFRmFiY2RlZg==",
  permission: "images:create",
  credits: 1,
});
const targets = {
  "bare-post": {
    path: "/v1/authorize",
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    expectBody: '"allowed":true',
  },
};

await app.listen({ host: "127.0.0.1", port: 0 });
stopOnSignal(() => app.close());
printReady(app, targets);
