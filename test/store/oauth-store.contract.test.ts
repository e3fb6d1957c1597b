import { join } from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { describe, expect, onTestFinished, test } from "vitest";
import type { AuditEntry } from "../../src/domain/audit.js";
import { canManageKeys } from "../../src/domain/console-roles.js";
import type { ConnectionRevocation } from "../../src/store/console-store.js";
import { type Stores, openStores } from "../../src/store/open-database.js";
import type { McpConnection } from "../../src/store/oauth-store.js";
import { createPostgresSchema } from "../helpers/postgres-schema.js";
import { tempDir } from "../helpers/processes.js";
import { describeWithServices } from "../helpers/services.js";

/** The stores, and a statement run on the database by another connection (what an operator's SQL does). */
interface Opened {
  stores: Stores;
  raw(statement: string): Promise<void>;
}

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

/** A revocation that records what it was told. */
function revocation(): ConnectionRevocation & { counts: number[]; audited: string[] } {
  const counts: number[] = [];
  const audited: string[] = [];
  return {
    counts,
    audited,
    audit: (c) => {
      audited.push(c.id);
      return entry("mcp_connection.revoke", c.orgId, c.id);
    },
    revoked: (count) => counts.push(count),
  };
}

function connection(id: string, userId: string, orgId: string): McpConnection {
  return {
    id,
    orgId,
    userId,
    clientId: "mcl_1",
    clientName: "Client",
    permissions: ["usage:read"],
    resource: "http://127.0.0.1:8080/mcp",
    accessHash: `access-${id}`,
    accessExpiresAt: NOW + 3_600_000,
    refreshHash: `refresh-${id}`,
    createdAt: NOW,
    revokedAt: null,
  };
}

/** Two organizations, a user who is admin in both, and one connection of theirs in each. */
async function people(stores: Stores) {
  for (const org of ["org_1", "org_2"]) {
    await stores.keys.createOrganization({ id: org, name: org, createdAt: NOW });
    await stores.console.insertUser(
      {
        id: `usr_owner_${org}`,
        email: `owner@${org}.test`,
        passwordHash: "x",
        createdAt: NOW,
        totpSecret: null,
      },
      { userId: `usr_owner_${org}`, orgId: org, role: "owner", createdAt: NOW },
      entry("user.create", org, `usr_owner_${org}`),
    );
  }
  await stores.console.insertUser(
    { id: "usr_a", email: "a@example.com", passwordHash: "x", createdAt: NOW, totpSecret: null },
    { userId: "usr_a", orgId: "org_1", role: "admin", createdAt: NOW },
    entry("user.create", "org_1", "usr_a"),
  );
  await stores.console.putMembership({ userId: "usr_a", orgId: "org_2", role: "admin", createdAt: NOW }, () =>
    entry("membership.create", "org_2", "usr_a"),
  );
  for (const [id, org] of [
    ["mcc_1", "org_1"],
    ["mcc_2", "org_2"],
  ] as const) {
    expect(
      await stores.oauth.insertConnection(
        connection(id, "usr_a", org),
        "no-code",
        canManageKeys,
        entry("mcp_connection.create", org, id),
      ),
    ).toBe(true);
  }
}

const revokedAt = async (stores: Stores, accessHash: string) =>
  (await stores.oauth.findConnectionByAccess(accessHash))?.revokedAt;

/** What every database promises of OAuth connections and the people who granted them. */
function oauthStoreContract(openRaw: () => Promise<Opened>): void {
  const open = async () => (await openRaw()).stores;
  test("a connection is found with its user's role now; none can be stored or kept without the membership", async () => {
    const { stores, raw } = await openRaw();
    await people(stores);
    expect(await stores.oauth.findConnectionByAccess("access-mcc_1")).toMatchObject({
      grantorRole: "admin",
      organizationDisabled: false,
    });
    // Not a member of org_2 with a role that may grant: nothing written.
    expect(
      await stores.oauth.insertConnection(
        connection("mcc_x", "usr_owner_org_1", "org_2"),
        "no-code",
        canManageKeys,
        entry("mcp_connection.create", "org_2", "mcc_x"),
      ),
    ).toBe(false);
    // The database itself refuses a connection without its membership (the foreign key).
    await expect(
      raw(`insert into mcp_connections (id, org_id, user_id, client_id, client_name, permissions, resource,
        access_hash, access_expires_at, refresh_hash, created_at) values ('mcc_raw', 'org_2',
        'usr_owner_org_1', 'mcl_1', 'raw', 'usage:read', 'r', 'access-raw', 1, 'refresh-raw', 1)`),
    ).rejects.toThrow(/foreign key/i);
    // A membership deleted by any path takes its connections with it.
    await raw("delete from memberships where user_id = 'usr_a' and org_id = 'org_2'");
    expect(await stores.oauth.findConnectionByAccess("access-mcc_2")).toBeUndefined();
    expect(await stores.oauth.findConnectionByAccess("access-mcc_1")).toBeDefined();
  });

  test("removing a membership revokes the user's connection there, audited in the same write, and only there", async () => {
    const stores = await open();
    await people(stores);
    const ends = revocation();
    expect(
      await stores.console.removeMembership(
        "usr_a",
        "org_2",
        () => entry("membership.remove", "org_2", "usr_a"),
        ends,
      ),
    ).toBe("removed");
    expect(ends.counts).toEqual([1]);
    expect(ends.audited).toEqual(["mcc_2"]);
    expect(await revokedAt(stores, "access-mcc_1")).toBeNull();
    const trail = await stores.audit.listAuditEntries({ orgId: "org_2", limit: 10 });
    expect(trail.filter((e) => e.action === "mcp_connection.revoke").map((e) => e.targetId)).toEqual([
      "mcc_2",
    ]);
  });

  test("a demotion to member revokes; a change between owner and admin does not", async () => {
    const stores = await open();
    await people(stores);
    const kept = revocation();
    await stores.console.putMembership(
      { userId: "usr_a", orgId: "org_1", role: "owner", createdAt: NOW },
      () => entry("membership.update", "org_1", "usr_a"),
    );
    expect(kept.counts).toEqual([]);
    expect(await revokedAt(stores, "access-mcc_1")).toBeNull();
    const ends = revocation();
    await stores.console.putMembership(
      { userId: "usr_a", orgId: "org_1", role: "member", createdAt: NOW },
      () => entry("membership.update", "org_1", "usr_a"),
      ends,
    );
    expect(ends.counts).toEqual([1]);
    expect(await revokedAt(stores, "access-mcc_1")).toBe(NOW);
    expect(await revokedAt(stores, "access-mcc_2")).toBeNull();
  });

  test("a new password, a two-factor reset or the user's removal revoke every connection of theirs", async () => {
    for (const change of ["password", "two-factor", "remove"] as const) {
      const stores = await open();
      await people(stores);
      const ends = revocation();
      if (change === "password") {
        await stores.console.setPassword(
          "usr_a",
          "y",
          null,
          entry("user.password.update", null, "usr_a"),
          ends,
        );
      } else if (change === "two-factor") {
        await stores.console.setTotp("usr_a", null, entry("user.two_factor.update", null, "usr_a"), ends);
      } else {
        await stores.console.removeUser("usr_a", entry("user.remove", null, "usr_a"), ends);
      }
      expect(ends.counts, change).toEqual([2]);
      expect(ends.audited.sort(), change).toEqual(["mcc_1", "mcc_2"]);
      const left = await stores.oauth.listConnections("org_1");
      if (change === "remove") expect(left).toEqual([]);
      else expect(left.map((c) => c.revokedAt)).toEqual([NOW]);
    }
  });

  test("a rotated refresh token is remembered with its connection; of two racing rotations one wins", async () => {
    const stores = await open();
    await people(stores);
    const next = (n: number) => ({ accessHash: `a${n}`, accessExpiresAt: NOW, refreshHash: `r${n}` });
    const racing = await Promise.all(
      [1, 2].map((n) => stores.oauth.rotateTokens("refresh-mcc_1", next(n), NOW)),
    );
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(await stores.oauth.findRotatedRefresh("refresh-mcc_1")).toEqual({
      connectionId: "mcc_1",
      orgId: "org_1",
    });
    expect(await stores.oauth.findRotatedRefresh("refresh-mcc_2")).toBeUndefined();
  });
}

describe("OAuth store on SQLite", () => {
  oauthStoreContract(async () => {
    const file = join(tempDir(), "latchkey.db");
    const stores = await openStores(`sqlite:${file}`);
    onTestFinished(() => stores.close());
    return {
      stores,
      raw: async (statement) => {
        const other = new SQLite(file);
        try {
          other.pragma("foreign_keys = ON");
          other.exec(statement);
        } finally {
          other.close();
        }
      },
    };
  });
});

describeWithServices(["postgres"], "OAuth store on PostgreSQL", ({ postgres }) => {
  oauthStoreContract(async () => {
    const schema = await createPostgresSchema(postgres);
    onTestFinished(() => schema.drop());
    const stores = await openStores(schema.url);
    onTestFinished(() => stores.close());
    return {
      stores,
      raw: async (statement) => {
        const client = new pg.Client({ connectionString: schema.url });
        await client.connect();
        try {
          await client.query(statement);
        } finally {
          await client.end();
        }
      },
    };
  });
});
