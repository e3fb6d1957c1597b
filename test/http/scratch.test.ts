import { test } from "vitest";
import { buildTestApp } from "../helpers/build-test-app.js";
test("doc", async () => {
  const { app } = await buildTestApp();
  const d = (await app.inject({ method: "GET", url: "/openapi.json" })).json();
  console.log(JSON.stringify(d.paths["/v1/api-keys"].get.parameters, null, 1));
});
