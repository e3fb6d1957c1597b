import { describe, expect, test } from "vitest";
import { assertCanCreate, assertCanDisable, assertCanUpdate } from "../../src/domain/authority.js";
import type { Grant, Permission } from "../../src/domain/permissions.js";

const grant = (...permissions: Permission[]): Grant => ({ permissions, allFuturePermissions: false });
const allFuture: Grant = { permissions: [], allFuturePermissions: true };

function refusal(check: () => void): string {
  try {
    check();
  } catch (error) {
    expect(error).toMatchObject({ code: "insufficient_authority" });
    return (error as Error).message;
  }
  throw new Error("expected the check to refuse");
}

describe("create", () => {
  test("a caller can grant permissions it holds", () => {
    expect(() =>
      assertCanCreate(grant("api_keys:create_update", "images:create"), grant("images:create")),
    ).not.toThrow();
  });

  test("a caller cannot grant a permission it lacks, and the refusal names it", () => {
    const message = refusal(() =>
      assertCanCreate(grant("api_keys:create_update"), grant("images:create", "usage:read")),
    );
    expect(message).toContain("images:create");
    expect(message).toContain("usage:read");
    expect(message).not.toContain("api_keys:create_update");
  });

  test("only an all-future caller may create an all-future key", () => {
    refusal(() => assertCanCreate(grant("api_keys:create_update", "images:create"), allFuture));
    expect(() => assertCanCreate(allFuture, allFuture)).not.toThrow();
  });

  test("an all-future caller may grant anything", () => {
    expect(() => assertCanCreate(allFuture, grant("usage:read", "images:store"))).not.toThrow();
  });
});

describe("update", () => {
  const caller = grant("api_keys:create_update", "images:create");

  test("needs authority over the existing permissions even for a rename", () => {
    const message = refusal(() => assertCanUpdate(caller, grant("usage:read"), grant("usage:read")));
    expect(message).toContain("usage:read");
  });

  test("needs authority over the requested permissions", () => {
    refusal(() => assertCanUpdate(caller, grant("images:create"), grant("images:store")));
  });

  test("cannot touch an all-future key without all-future access", () => {
    refusal(() => assertCanUpdate(caller, allFuture, grant()));
  });

  test("passes when both sides are covered", () => {
    expect(() => assertCanUpdate(caller, grant("images:create"), grant())).not.toThrow();
  });
});

describe("disable", () => {
  test("needs authority over the existing permissions only", () => {
    expect(() => assertCanDisable(grant("api_keys:delete"), grant())).not.toThrow();
    refusal(() => assertCanDisable(grant("api_keys:delete"), grant("images:create")));
    refusal(() => assertCanDisable(grant("api_keys:delete", "images:create"), allFuture));
  });
});
