import { describe, expect, onTestFinished, test } from "vitest";
import type { AuditEntry } from "../../src/domain/audit.js";
import { type Stores, openStores } from "../../src/store/open-database.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { describeWithServices } from "../helpers/services.js";

const NOW = Date.parse("2026-11-22T10:00:00.000Z");
let sequence = 0;

function entry(action: AuditEntry["action"], orgId: string | null, targetId: string): AuditEntry {
  sequence++;
  return {
    id: `aud_${String(sequence).padStart(22, "0")}`,
    at: NOW,
    actor: "operator",
    orgId,
    action,
    targetId,
    before: null,
    after: null,
  };
}

/** A change that revokes no connection worth counting here (the OAuth contract below counts them). */
const NONE = {
  audit: (c: { id: string; orgId: string }) => entry("mcp_connection.revoke", c.orgId, c.id),
  revoked: () => {},
};

async function organization(stores: Stores, id: string) {
  await stores.keys.createOrganization({ id, name: id, createdAt: NOW });
  return id;
}

const user = (id: string, email: string) => ({
  id,
  email,
  passwordHash: "scrypt$1$1$1$salt$hash",
  createdAt: NOW,
  totpSecret: null,
});

/** What every database promises of console users, memberships and sessions. */
function consoleStoreContract(open: () => Promise<Stores>): void {
  test("emails are unique ignoring case, and a taken one writes nothing", async () => {
    const stores = await open();
    const org = await organization(stores, "org_a");
    const membership = (userId: string) => ({ userId, orgId: org, role: "owner" as const, createdAt: NOW });
    expect(
      await stores.console.insertUser(
        user("usr_1", "Ada@Example.com"),
        membership("usr_1"),
        entry("user.create", org, "usr_1"),
      ),
    ).toBe(true);
    expect(
      await stores.console.insertUser(
        user("usr_2", "ada@example.COM"),
        membership("usr_2"),
        entry("user.create", org, "usr_2"),
      ),
    ).toBe(false);
    expect((await stores.console.findUserByEmail("ADA@example.com"))?.id).toBe("usr_1");
    expect(await stores.console.findUserById("usr_2")).toBeUndefined();
    const trail = await stores.audit.listAuditEntries({ orgId: org, limit: 10 });
    expect(trail.map((e) => e.targetId)).toEqual(["usr_1"]);
  });

  test("invitations: one per organization and email, found ignoring case, accepted once into a membership", async () => {
    const stores = await open();
    const org = await organization(stores, "org_i");
    await organization(stores, "org_j");
    await stores.console.insertUser(
      user("usr_i", "Invitee@Example.com"),
      undefined,
      entry("user.create", null, "usr_i"),
    );
    expect(await stores.console.membershipsOf("usr_i")).toEqual([]);
    const invitation = {
      orgId: org,
      email: "invitee@example.com",
      role: "member" as const,
      invitedBy: "user:usr_o",
      createdAt: NOW,
    };
    await stores.console.putInvitation(invitation, entry("membership.invite", org, invitation.email));
    await stores.console.putInvitation(
      { ...invitation, role: "admin" },
      entry("membership.invite", org, invitation.email),
    );
    await stores.console.putInvitation(
      { ...invitation, orgId: "org_j" },
      entry("membership.invite", "org_j", invitation.email),
    );
    expect((await stores.console.invitationsOf(org)).map((i) => i.role)).toEqual(["admin"]);
    expect((await stores.console.invitationsFor("INVITEE@example.com")).map((i) => i.orgName).sort()).toEqual(
      ["org_i", "org_j"],
    );
    const invitee = (await stores.console.findUserById("usr_i"))!;
    expect(
      await stores.console.acceptInvitation(org, invitee, () =>
        entry("membership.invitation_accept", org, "usr_i"),
      ),
    ).toBe(true);
    expect(
      await stores.console.acceptInvitation(org, invitee, () =>
        entry("membership.invitation_accept", org, "usr_i"),
      ),
    ).toBe(false);
    expect((await stores.console.membershipsOf("usr_i")).map((m) => [m.orgId, m.role])).toEqual([
      [org, "admin"],
    ]);
    expect(
      await stores.console.deleteInvitation(
        "org_j",
        "Invitee@example.com",
        entry("membership.invitation_remove", "org_j", "x"),
      ),
    ).toBe(true);
    expect(await stores.console.invitationsFor("invitee@example.com")).toEqual([]);
  });

  test("an organization keeps its last owner: demoting or removing it is refused", async () => {
    const stores = await open();
    const org = await organization(stores, "org_b");
    await stores.console.insertUser(
      user("usr_o", "o@example.com"),
      { userId: "usr_o", orgId: org, role: "owner", createdAt: NOW },
      entry("user.create", org, "usr_o"),
    );
    await stores.console.insertUser(
      user("usr_m", "m@example.com"),
      { userId: "usr_m", orgId: org, role: "member", createdAt: NOW },
      entry("user.create", org, "usr_m"),
    );
    const audit = () => entry("membership.update", org, "usr_o");
    expect(
      await stores.console.putMembership(
        { userId: "usr_o", orgId: org, role: "admin", createdAt: NOW },
        audit,
      ),
    ).toBe(false);
    expect(await stores.console.removeMembership("usr_o", org, audit, NONE)).toBe("last_owner");
    expect(await stores.console.removeUser("usr_o", entry("user.remove", null, "usr_o"), NONE)).toBe(
      "last_owner",
    );
    expect(
      await stores.console.putMembership(
        { userId: "usr_m", orgId: org, role: "owner", createdAt: NOW },
        audit,
      ),
    ).toBe(true);
    expect(await stores.console.removeMembership("usr_o", org, audit, NONE)).toBe("removed");
    expect((await stores.console.listMemberships(org)).map((m) => [m.email, m.role, m.orgName])).toEqual([
      ["m@example.com", "owner", "org_b"],
    ]);
  });

  test("sessions are found by hash, touched, revoked, and go with their user", async () => {
    const stores = await open();
    const org = await organization(stores, "org_c");
    await stores.console.insertUser(
      user("usr_s", "s@example.com"),
      { userId: "usr_s", orgId: org, role: "member", createdAt: NOW },
      entry("user.create", org, "usr_s"),
    );
    await stores.console.insertSession({
      tokenHash: "h1",
      userId: "usr_s",
      createdAt: NOW,
      lastSeenAt: NOW,
      revokedAt: null,
    });
    await stores.console.insertSession({
      tokenHash: "h2",
      userId: "usr_s",
      createdAt: NOW,
      lastSeenAt: NOW,
      revokedAt: null,
    });
    await stores.console.touchSession("h1", NOW + 60_000);
    expect((await stores.console.findSession("h1"))?.lastSeenAt).toBe(NOW + 60_000);
    await stores.console.revokeSession("h1", NOW + 120_000);
    await stores.console.revokeSession("h1", NOW + 180_000);
    expect((await stores.console.findSession("h1"))?.revokedAt).toBe(NOW + 120_000);
    expect(await stores.console.removeUser("usr_s", entry("user.remove", null, "usr_s"), NONE)).toBe(
      "removed",
    );
    expect(await stores.console.findSession("h2")).toBeUndefined();
    expect(await stores.console.listMemberships()).toEqual([]);
  });

  test("a new password revokes every other session of the user, with its audit entry; an unknown user writes nothing", async () => {
    const stores = await open();
    const org = await organization(stores, "org_p");
    const member = (id: string) => ({ userId: id, orgId: org, role: "owner" as const, createdAt: NOW });
    await stores.console.insertUser(
      user("usr_p", "p@example.com"),
      member("usr_p"),
      entry("user.create", org, "usr_p"),
    );
    await stores.console.insertUser(
      user("usr_q", "q@example.com"),
      member("usr_q"),
      entry("user.create", org, "usr_q"),
    );
    const session = (tokenHash: string, userId: string) =>
      stores.console.insertSession({ tokenHash, userId, createdAt: NOW, lastSeenAt: NOW, revokedAt: null });
    await session("this", "usr_p");
    await session("other", "usr_p");
    await session("someone else's", "usr_q");
    await stores.console.revokeSession("other", NOW + 1);

    const change = { ...entry("user.password.update", null, "usr_p"), at: NOW + 5_000 };
    expect(await stores.console.setPassword("usr_p", "scrypt$new", "this", change, NONE)).toBe(true);
    expect((await stores.console.findUserById("usr_p"))?.passwordHash).toBe("scrypt$new");
    expect((await stores.console.findSession("this"))?.revokedAt).toBeNull();
    // Revoked earlier: keeps the time it was revoked at.
    expect((await stores.console.findSession("other"))?.revokedAt).toBe(NOW + 1);
    expect((await stores.console.findSession("someone else's"))?.revokedAt).toBeNull();

    await session("third", "usr_p");
    const reset = entry("user.password.update", null, "usr_p");
    expect(await stores.console.setPassword("usr_p", "scrypt$reset", null, reset, NONE)).toBe(true);
    expect((await stores.console.findSession("this"))?.revokedAt).toBe(NOW);
    expect((await stores.console.findSession("third"))?.revokedAt).toBe(NOW);

    const ghost = entry("user.password.update", null, "usr_ghost");
    expect(await stores.console.setPassword("usr_ghost", "scrypt$x", null, ghost, NONE)).toBe(false);
    // Deployment-wide entries: a user belongs to no one organization.
    const trail = await stores.audit.listAuditEntries({ orgId: null, limit: 10 });
    expect(trail.map((e) => e.id).sort()).toEqual([change.id, reset.id].sort());
  });

  test("two-factor: turned on with the step of its first code, each later step taken once, turned off; audited", async () => {
    const stores = await open();
    const org = await organization(stores, "org_t");
    const member = { userId: "usr_t", orgId: org, role: "owner" as const, createdAt: NOW };
    await stores.console.insertUser(
      user("usr_t", "t@example.com"),
      member,
      entry("user.create", org, "usr_t"),
    );
    // Off: no step can be taken.
    expect(await stores.console.takeTotpStep("usr_t", 100)).toBe(false);

    const on = entry("user.two_factor.update", null, "usr_t");
    expect(await stores.console.setTotp("usr_t", { secret: "S".repeat(32), step: 100 }, on)).toBe(true);
    expect((await stores.console.findUserById("usr_t"))?.totpSecret).toBe("S".repeat(32));
    expect(await stores.console.takeTotpStep("usr_t", 100)).toBe(false);
    expect(await stores.console.takeTotpStep("usr_t", 99)).toBe(false);
    expect(await stores.console.takeTotpStep("usr_t", 101)).toBe(true);
    expect(await stores.console.takeTotpStep("usr_t", 101)).toBe(false);
    const racing = await Promise.all(
      [102, 102, 102].map((step) => stores.console.takeTotpStep("usr_t", step)),
    );
    expect(racing.filter(Boolean)).toHaveLength(1);

    const off = entry("user.two_factor.update", null, "usr_t");
    expect(await stores.console.setTotp("usr_t", null, off)).toBe(true);
    expect((await stores.console.findUserById("usr_t"))?.totpSecret).toBeNull();
    expect(await stores.console.takeTotpStep("usr_t", 200)).toBe(false);
    const ghost = entry("user.two_factor.update", null, "usr_ghost");
    expect(await stores.console.setTotp("usr_ghost", null, ghost, NONE)).toBe(false);
    const trail = await stores.audit.listAuditEntries({ orgId: null, limit: 10 });
    expect(trail.map((e) => e.id).sort()).toEqual([on.id, off.id].sort());
  });
}

describe("console store on SQLite", () => {
  consoleStoreContract(async () => {
    const stores = await openStores("sqlite::memory:");
    onTestFinished(() => stores.close());
    return stores;
  });
});

describeWithServices(["postgres"], "console store on PostgreSQL", ({ postgres }) => {
  consoleStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const stores = await openStores(schema.url);
    onTestFinished(() => stores.close());
    return stores;
  });
});
