import { basicAuth, type FakeClock, type TestApp } from "./build-test-app.js";
import { consoleUser } from "./console-session.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * An organization as a console shows it after weeks of use, for the pages' pictures and their width
 * checks: people of every role, keys in every state, webhook endpoints, and images authorized over 60
 * days (so that every chart and table has rows). The app must allow private webhook addresses. The clock starts 60 days back and ends at `now`.
 */
export async function showcaseOrganization(testApp: TestApp, clock: FakeClock, now: number) {
  clock.set(now - 61 * DAY_MS);
  const owner = await testApp.createOrganization("acme");
  await consoleUser(testApp, owner.orgId, "owner");
  await consoleUser(testApp, owner.orgId, "admin", "ada.lovelace@example.com");
  await consoleUser(testApp, owner.orgId, "member", "grace@example.com");
  await testApp.services.plans.change(owner.orgId, { imageCredits: 2500, periodAnchor: now - 12 * DAY_MS });
  const { token } = await testApp.services.serviceTokens.create("renderer");
  const post = (url: string, headers: Record<string, string>, payload: unknown) =>
    testApp.app.inject({ method: "POST", url, headers, payload: payload as Record<string, unknown> });
  const create = async (payload: Record<string, unknown>) =>
    (await post("/v1/api-keys", owner.headers, payload)).json<{
      id: string;
      api_id: string;
      api_key: string;
    }>();

  const renderer = await create({
    name: "Render service (production)",
    description: "Creates the shop's product images",
    permissions: ["images:create", "images:store", "usage:read"],
  });
  await create({ name: "Nightly export", permissions: ["usage:read", "audit:read"] });
  await create({ name: "Billing reconciler", permissions: ["usage:read"] });
  const staging = await create({ name: "Render service (staging)", permissions: ["images:create"] });
  await testApp.app.inject({ method: "DELETE", url: `/v1/api-keys/${staging.id}`, headers: owner.headers });

  // Two endpoints subscribed to events the pictures never cause (nothing is sent to these hosts). Their
  // hosts are not resolved only because the pictures' app allows private addresses (for its receiver).
  for (const endpoint of [
    {
      url: "https://hooks.example.com/latchkey/security",
      events: ["api_key.leaked", "api_key.expired"],
      description: "Security team's pager",
    },
    {
      url: "https://billing.example.com/webhooks/latchkey",
      events: ["credits.grant_expired"],
      description: "Billing system (paused during the migration)",
      disabled: true,
    },
  ]) {
    clock.set(now - 5 * DAY_MS);
    const created = await post("/v1/webhook-endpoints", owner.headers, endpoint);
    if (created.statusCode !== 201) throw new Error(`showcase endpoint: ${created.body}`);
  }

  // Images over the last 60 days, more on weekdays and in working hours.
  const authorization = basicAuth(renderer.api_id, renderer.api_key).authorization;
  const authorize = (credits: number) =>
    post(
      "/v1/authorize",
      { "x-latchkey-service-token": token },
      { authorization, permission: "images:create", credits },
    );
  for (let day = 59; day >= 3; day--) {
    clock.set(now - day * DAY_MS);
    const weekday = new Date(now - day * DAY_MS).getUTCDay() % 6 !== 0;
    await authorize((weekday ? 14 : 4) + ((day * 7) % 9));
  }
  for (let hour = 71; hour >= 0; hour--) {
    clock.set(now - hour * HOUR_MS);
    const local = new Date(now - hour * HOUR_MS).getUTCHours();
    const credits = local >= 8 && local <= 18 ? 1 + ((hour * 5) % 4) : hour % 5 === 0 ? 1 : 0;
    if (credits > 0) await authorize(credits);
  }
  clock.set(now);
  return { orgId: owner.orgId, rendererId: renderer.id };
}
