import type { InjectOptions } from "fastify";
import type { Permission } from "../../src/domain/permissions.js";
import type { RateLimitGroup } from "../../src/domain/rate-limit-groups.js";
import {
  RESOURCE_FAMILIES,
  type ResourceFamily,
  type ResourceOperation,
} from "../../src/domain/resource-families.js";
import type { TestApp, TestKey } from "./build-test-app.js";

/** One route of one resource family, so that a table of cases can run against each of them. */
export interface ResourceRoute {
  /** `proxies: create`, for test names. */
  label: string;
  family: ResourceFamily;
  operation: ResourceOperation;
  method: "GET" | "POST" | "DELETE";
  /** Whether the path names a record (`{path}/{id}`). */
  targetsRecord: boolean;
  permission: Permission;
  group: RateLimitGroup;
  body?: Record<string, unknown>;
  successStatus: number;
}

const SHAPES: Array<Pick<ResourceRoute, "operation" | "method" | "targetsRecord" | "successStatus">> = [
  { operation: "list", method: "GET", targetsRecord: false, successStatus: 200 },
  { operation: "create", method: "POST", targetsRecord: false, successStatus: 200 },
  { operation: "get", method: "GET", targetsRecord: true, successStatus: 200 },
  { operation: "update", method: "POST", targetsRecord: true, successStatus: 200 },
  { operation: "delete", method: "DELETE", targetsRecord: true, successStatus: 204 },
];

/** The five routes of a family. */
export function resourceRoutes(family: ResourceFamily): ResourceRoute[] {
  return SHAPES.map((shape) => ({
    ...shape,
    label: `${family.name}: ${shape.operation}`,
    family,
    permission: family.operations[shape.operation].permission,
    group: family.operations[shape.operation].group,
    ...(shape.method === "POST" ? { body: { name: `made by ${shape.operation}`, settings: { a: 1 } } } : {}),
  }));
}

/** Every route of every family: 15 rows. */
export const RESOURCE_ROUTES: readonly ResourceRoute[] = RESOURCE_FAMILIES.flatMap(resourceRoutes);

/** The request of `route` against `targetId` (ignored by collection routes), with these headers. */
export function resourceRequest(
  route: ResourceRoute,
  targetId: string,
  headers: Record<string, string>,
): InjectOptions {
  return {
    method: route.method,
    url: route.targetsRecord ? `${route.family.path}/${targetId}` : route.family.path,
    headers,
    ...(route.body ? { payload: route.body } : {}),
  };
}

/** A syntactically valid id of the family that was never issued. */
export function unknownId(family: ResourceFamily): string {
  return `${family.idPrefix}${"0".repeat(22)}`;
}

/** Creates a record through the service (no HTTP request, no rate-limit slot). */
export async function seedResource(
  testApp: TestApp,
  owner: TestKey,
  family: ResourceFamily,
  content: Record<string, unknown> = { name: "seeded" },
): Promise<{ id: string }> {
  return testApp.services.resources[family.name].create({ orgId: owner.orgId }, content);
}

/** Every record of the family as the store holds it for the organization (no HTTP request). */
export async function recordsOf(testApp: TestApp, owner: TestKey, family: ResourceFamily) {
  const page = await testApp.services.resources[family.name].list({ orgId: owner.orgId }, { count: 100 });
  return page.data;
}
