import { expect, test } from "vitest";
import { fakeClock } from "../helpers/build-test-app.js";
import { creditsUsed, platformApp } from "../helpers/platform.js";

const at = (iso: string) => Date.parse(iso);

/** An organization with 2 credits a period anchored on January 31, and a way to spend one credit. */
async function twoCreditsFromThe31st() {
  const clock = fakeClock(at("2026-01-31T08:30:00.000Z"));
  const platform = await platformApp({ clock });
  const { testApp, owner, authorize } = platform;
  await testApp.services.plans.change(owner.orgId, {
    imageCredits: 2,
    periodAnchor: at("2026-01-31T08:30:00.000Z"),
  });
  const spend = async () =>
    (
      await authorize({ authorization: owner.headers.authorization, permission: "images:create", credits: 1 })
    ).json();
  return { ...platform, clock, spend };
}

test("credits come back exactly at the anchor: Feb 28 for an anchor on the 31st, then Mar 31", async () => {
  const { clock, spend, testApp, owner } = await twoCreditsFromThe31st();
  clock.set(at("2026-02-10T00:00:00.000Z"));
  expect((await spend()).allowed).toBe(true);
  expect((await spend()).allowed).toBe(true);
  clock.set(at("2026-02-28T08:29:59.999Z"));
  const refused = await spend();
  expect(refused).toMatchObject({ allowed: false, status: 429 });
  expect(refused.error.message).toContain("2026-02-28T08:30:00.000Z");

  // The first millisecond of the next period: a fresh allowance, counted from 0.
  clock.set(at("2026-02-28T08:30:00.000Z"));
  const fresh = await spend();
  expect(fresh.allowed).toBe(true);
  expect(fresh.headers["x-renders-used"]).toBe("1");
  expect(await creditsUsed(testApp, owner.orgId)).toBe(1);
  expect((await spend()).allowed).toBe(true);
  // February's period is 31 days long (Feb 28 to Mar 31): still refused on Mar 30.
  clock.set(at("2026-03-30T23:00:00.000Z"));
  const march = await spend();
  expect(march.allowed).toBe(false);
  expect(march.error.message).toContain("2026-03-31T08:30:00.000Z");
  clock.set(at("2026-03-31T08:30:00.000Z"));
  expect((await spend()).allowed).toBe(true);
});

test("a leap year: the period from Feb 29 ends on Mar 31", async () => {
  const { clock, spend } = await twoCreditsFromThe31st();
  clock.set(at("2028-02-29T08:30:00.000Z"));
  await spend();
  await spend();
  const refused = await spend();
  expect(refused.allowed).toBe(false);
  expect(refused.error.message).toContain("2028-03-31T08:30:00.000Z");
});

test("moving the anchor starts a new period at once", async () => {
  const { clock, spend, testApp, owner } = await twoCreditsFromThe31st();
  clock.set(at("2026-02-10T00:00:00.000Z"));
  await spend();
  await spend();
  expect((await spend()).allowed).toBe(false);
  await testApp.services.plans.change(owner.orgId, { periodAnchor: at("2026-02-10T00:00:00.000Z") });
  const fresh = await spend();
  expect(fresh.allowed).toBe(true);
  expect(fresh.headers["x-renders-used"]).toBe("1");
});

test("the default plan follows LATCHKEY_DEFAULT_IMAGE_CREDITS and is anchored at the organization's creation", async () => {
  const clock = fakeClock(at("2026-05-31T10:00:00.000Z"));
  const { testApp, owner, authorize } = await platformApp({
    clock,
    env: { LATCHKEY_DEFAULT_IMAGE_CREDITS: "1" },
  });
  const plan = await testApp.services.plans.get(owner.orgId);
  expect(plan).toMatchObject({
    imageCredits: 1,
    overages: false,
    periodAnchor: at("2026-05-31T10:00:00.000Z"),
  });
  const ask = async () =>
    (
      await authorize({ authorization: owner.headers.authorization, permission: "images:create", credits: 1 })
    ).json();
  expect((await ask()).allowed).toBe(true);
  clock.set(at("2026-06-30T09:59:59.999Z"));
  expect((await ask()).allowed).toBe(false);
  clock.set(at("2026-06-30T10:00:00.000Z"));
  expect((await ask()).allowed).toBe(true);
});
