import { describe, expect, test } from "vitest";
import { fakeClock } from "../helpers/build-test-app.js";
import { grantsApp } from "../helpers/credit-grants-app.js";

describe("credit grants", () => {
  test.each([
    ["0 credits", { credits: 0 }],
    ["negative credits", { credits: -5 }],
    ["credits above 1e9", { credits: 1_000_000_001 }],
    ["a fraction", { credits: 1.5 }],
    ["an expiry in the past", { credits: 5, expires_at: "2020-01-01T00:00:00Z" }],
    ["an expiry that is no time", { credits: 5, expires_at: "soon" }],
    ["an unknown member", { credits: 5, amount: 5 }],
  ])("%s: 400 with validation_errors, nothing granted", async (_label, body) => {
    const { grant, grants } = await grantsApp(5);
    const response = await grant(body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "invalid_request", validation_errors: expect.any(Array) });
    expect(await grants()).toEqual([]);
  });

  test("consumed after the allowance, all or nothing, listed with what is left", async () => {
    const { grant, grants, render } = await grantsApp(5);
    const created = await grant({ credits: 10, reason: "top-up" });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ credits: 10, remaining: 10, reason: "top-up", expires_at: null });
    expect((await render(4)).allowed).toBe(true);
    // 1 left of the allowance and 2 from the grant: one request, split.
    const split = await render(3);
    expect(split).toMatchObject({
      allowed: true,
      headers: { "x-renders-consumed": "3", "x-renders-used": "7" },
    });
    expect((await grants())[0].remaining).toBe(8);
    // More than is left anywhere: refused, nothing taken.
    const refused = await render(9);
    expect(refused).toMatchObject({ allowed: false, status: 429, error: { code: "plan_limit_exceeded" } });
    expect((await grants())[0].remaining).toBe(8);
    expect((await render(8)).allowed).toBe(true);
    expect((await grants())[0].remaining).toBe(0);
    expect((await render(1)).allowed).toBe(false);
  });

  test("the soonest expiry is used first; what is left of an expired grant is not consumed and lists as 0", async () => {
    const clock = fakeClock();
    const { grant, grants, render } = await grantsApp(0, { clock });
    const later = (await grant({ credits: 5, expires_at: "2026-12-31T00:00:00Z" })).json();
    const sooner = (await grant({ credits: 3, expires_at: "2026-11-22T12:00:00Z" })).json();
    expect((await render(2)).allowed).toBe(true);
    const byId = async () =>
      Object.fromEntries((await grants()).map((g: { id: string; remaining: number }) => [g.id, g.remaining]));
    expect(await byId()).toEqual({ [sooner.id]: 1, [later.id]: 5 });
    clock.set(Date.parse("2026-11-22T12:00:00Z"));
    expect(await byId()).toEqual({ [sooner.id]: 0, [later.id]: 5 });
    expect((await render(6)).allowed).toBe(false);
    expect((await render(5)).allowed).toBe(true);
    expect(await byId()).toEqual({ [sooner.id]: 0, [later.id]: 0 });
  });

  test("an Idempotency-Key grants once", async () => {
    const { admin, orgId, grants } = await grantsApp(0);
    const headers = { "idempotency-key": "invoice-118" };
    const url = `/v1/admin/organizations/${orgId}/credit-grants`;
    const first = await admin("POST", url, { credits: 7 }, { headers });
    const again = await admin("POST", url, { credits: 7 }, { headers });
    expect(again.json()).toEqual(first.json());
    expect(await grants()).toHaveLength(1);
    expect(
      (await admin("POST", "/v1/admin/organizations/org_unknown/credit-grants", { credits: 1 })).statusCode,
    ).toBe(404);
  });
});
