import type { InjectOptions } from "fastify";
import type { Permission } from "../../src/domain/permissions.js";

/** One key-management route, described so that a table of cases can run against each of them. */
export interface KeyRoute {
  /** What the route does, for test names. */
  label: string;
  method: "GET" | "POST" | "DELETE";
  /** Whether the path names a target key (`/v1/api-keys/{id}`). */
  targetsKey: boolean;
  /** The permission the caller must hold. */
  permission: Permission;
  /** The operation group the request counts against. */
  group: "api-key:read" | "api-key:write";
  /** A valid body, for the routes that take one. */
  body?: Record<string, unknown>;
  /** Status of a successful call. */
  successStatus: number;
}

export const KEY_ROUTES: readonly KeyRoute[] = [
  {
    label: "list keys",
    method: "GET",
    targetsKey: false,
    permission: "api_keys:read",
    group: "api-key:read",
    successStatus: 200,
  },
  {
    label: "create a key",
    method: "POST",
    targetsKey: false,
    permission: "api_keys:create_update",
    group: "api-key:write",
    body: { name: "made by the route table", permissions: [] },
    successStatus: 200,
  },
  {
    label: "retrieve a key",
    method: "GET",
    targetsKey: true,
    permission: "api_keys:read",
    group: "api-key:read",
    successStatus: 200,
  },
  {
    label: "update a key",
    method: "POST",
    targetsKey: true,
    permission: "api_keys:create_update",
    group: "api-key:write",
    body: { name: "renamed by the route table", permissions: [] },
    successStatus: 200,
  },
  {
    label: "disable a key",
    method: "DELETE",
    targetsKey: true,
    permission: "api_keys:delete",
    group: "api-key:write",
    successStatus: 204,
  },
];

/** The request of `route` against `targetId` (ignored by collection routes), with these headers. */
export function routeRequest(
  route: KeyRoute,
  targetId: string,
  headers: Record<string, string>,
  overrides: Partial<InjectOptions> = {},
): InjectOptions {
  return {
    method: route.method,
    url: route.targetsKey ? `/v1/api-keys/${targetId}` : "/v1/api-keys",
    headers,
    ...(route.body ? { payload: route.body } : {}),
    ...overrides,
  };
}
