import { expect, test } from "vitest";
import { LatchkeyError, type PlatformUsageExportRow, type UsageExportRow } from "@latchkey/client";
import { fakeClock } from "../helpers/build-test-app.js";
import { startRealServer } from "./real-server.js";

/** The client's usage export against a real server over HTTP (fetch, a streamed body). */

const START = Date.parse("2026-11-22T10:00:00.000Z");
const range = { from: new Date("2026-11-22T00:00:00Z"), to: "2026-11-23T00:00:00Z" };

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function serverWithUsage() {
  const server = await startRealServer({}, fakeClock(START));
  const owner = await server.owner();
  const { token } = await server.serviceToken();
  const platform = server.platformClient(token);
  const authorization = `Basic ${Buffer.from(`${owner.apiId}:${owner.secret}`).toString("base64")}`;
  await platform.authorize({ authorization, permission: "images:create", credits: 3 });
  return { server, owner };
}

test("usage.export yields the organization's rows, parsed line by line; exportText gives the CSV", async () => {
  const { server, owner } = await serverWithUsage();
  const client = server.clientFor(owner);
  const rows: UsageExportRow[] = await collect(client.usage.export(range));
  expect(rows).toEqual([
    {
      organization_id: owner.orgId,
      start: "2026-11-22T10:00:00.000Z",
      end: "2026-11-22T11:00:00.000Z",
      images: 3,
      decisions: { allowed: 1, refused: 0 },
    },
  ]);
  const csv = (await collect(client.usage.exportText({ ...range, granularity: "day" }))).join("");
  expect(csv).toBe(
    "organization_id,start,end,images,decisions_allowed,decisions_refused\r\n" +
      `${owner.orgId},2026-11-22T00:00:00.000Z,2026-11-23T00:00:00.000Z,3,1,0\r\n`,
  );
});

test("admin.exportUsage yields every organization's rows with external_id", async () => {
  const { server, owner } = await serverWithUsage();
  const { token } = await server.test.services.serviceTokens.create("billing", undefined, ["provision"]);
  const admin = server.platformClient(token).admin;
  await admin.updateOrganization(owner.orgId, { external_id: "cus_42" });
  const rows: PlatformUsageExportRow[] = await collect(admin.exportUsage(range));
  expect(rows).toEqual([
    expect.objectContaining({ organization_id: owner.orgId, external_id: "cus_42", images: 3 }),
  ]);
  const ndjson = (await collect(admin.exportUsageText(range, "ndjson"))).join("");
  expect(JSON.parse(ndjson.trim())).toMatchObject({ external_id: "cus_42" });
});

test("a refused export throws its LatchkeyError before any row", async () => {
  const { server, owner } = await serverWithUsage();
  const client = server.clientFor(owner);
  const tooLong = client.usage.export({ from: "2026-10-01T00:00:00Z", to: "2026-11-02T00:00:00Z" });
  const error = await tooLong.next().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(LatchkeyError);
  expect(error).toMatchObject({ status: 400, code: "invalid_request" });
  const { token } = await server.serviceToken("renderer");
  const scoped = server.platformClient(token).admin.exportUsage(range);
  await expect(scoped.next()).rejects.toMatchObject({ status: 403, code: "missing_scope" });
});
