import { jsonErrorOffset } from "./json-error-offset.js";
import { isPermission, type Permission } from "./permissions.js";
import { isRateLimitGroup } from "./rate-limit-groups.js";
import { MAX_COST } from "./rate-limit-policies.js";

/** One entry of the forward-auth route table (LATCHKEY_ROUTES). */
export interface ForwardRoute {
  /** HTTP method, upper case, or `*` for any. */
  method: string;
  /** Path pattern: `*` matches within one segment, `**` across segments. */
  path: string;
  permission: Permission;
  /** A management group, or one of the platform's (LATCHKEY_GROUPS). */
  group?: string | undefined;
  /** Slots a request takes in each window of `group` (1 to 1,000; default 1). */
  cost?: number | undefined;
  credits?: number | undefined;
}

/** A compiled route table: the first matching route wins. */
export interface RouteTable {
  readonly routes: readonly ForwardRoute[];
  match(method: string, path: string): ForwardRoute | undefined;
}

const MEMBERS = new Set(["method", "path", "permission", "group", "cost", "credits"]);

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

/** Offsets of the top-level array's elements (any JSON value), so a bad entry can be reported by its line. */
function elementOffsets(text: string): number[] {
  const offsets: number[] = [];
  let depth = 0;
  let inString = false;
  // True right after the top-level `[` or a top-level `,`: the next non-space character starts an element.
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (expecting && depth === 1 && !" \t\n\r".includes(c)) {
      offsets.push(i);
      expecting = false;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      depth++;
      if (depth === 1) expecting = true;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) expecting = true;
  }
  return offsets;
}

function compile(pattern: string): RegExp {
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) =>
      part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}$`);
}

function checkRoute(entry: unknown, knownGroup: (name: string) => boolean): string | ForwardRoute {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return "is not an object";
  const route = entry as Record<string, unknown>;
  const unknown = Object.keys(route).filter((name) => !MEMBERS.has(name));
  if (unknown.length > 0) return `has unknown member(s) ${unknown.join(", ")}`;
  const { method = "*", path, permission, group, cost, credits } = route;
  if (typeof method !== "string" || !/^(\*|[A-Za-z]+)$/.test(method)) return 'has a bad "method"';
  if (typeof path !== "string" || !path.startsWith("/")) return 'needs a "path" starting with /';
  if (typeof permission !== "string" || !isPermission(permission)) {
    return `has an unknown "permission" ${JSON.stringify(permission)}`;
  }
  if (group !== undefined && (typeof group !== "string" || !knownGroup(group))) {
    return `has an unknown "group" ${JSON.stringify(group)}`;
  }
  if (credits !== undefined && !(Number.isInteger(credits) && (credits as number) >= 1)) {
    return 'has "credits" that is not a whole number >= 1';
  }
  if (cost !== undefined) {
    if (!(Number.isInteger(cost) && (cost as number) >= 1 && (cost as number) <= MAX_COST))
      return `has "cost" that is not a whole number from 1 to ${MAX_COST}`;
    if (group === undefined) return 'has "cost" without a "group" to take it from';
  }
  return {
    method: method.toUpperCase(),
    path,
    permission,
    group,
    cost: cost as number | undefined,
    credits: credits as number | undefined,
  };
}

/**
 * Parses the route table's JSON text. Every problem is reported with the line it is on, so an
 * operator can fix the file; the server refuses to start on any of them. A route's group must be known
 * when the server starts: a management group, or one of `knownGroup`'s (the LATCHKEY_GROUPS file).
 */
export function parseRouteTable(
  text: string,
  source = "routes file",
  knownGroup: (name: string) => boolean = isRateLimitGroup,
): RouteTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // V8 names the position only for some errors; the scanner finds it for all of them.
    const offset = jsonErrorOffset(text) ?? Number(/position (\d+)/.exec(String(error))?.[1] ?? 0);
    const where = ` on line ${lineOf(text, offset)}`;
    throw new Error(`${source}: not valid JSON${where}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${source}: must be a JSON array of routes (line 1).`);
  const offsets = elementOffsets(text);
  const routes = parsed.map((entry, index) => {
    const checked = checkRoute(entry, knownGroup);
    if (typeof checked === "string") {
      throw new Error(
        `${source}: route ${index + 1} on line ${lineOf(text, offsets[index] ?? 0)} ${checked}.`,
      );
    }
    return checked;
  });
  const compiled = routes.map((route) => ({ route, pattern: compile(route.path) }));
  return {
    routes,
    match(method, path) {
      const upper = method.toUpperCase();
      return compiled.find(
        ({ route, pattern }) => (route.method === "*" || route.method === upper) && pattern.test(path),
      )?.route;
    },
  };
}

/** The empty table: every forward-auth request is `no_route` until routes are configured. */
export const EMPTY_ROUTE_TABLE: RouteTable = parseRouteTable("[]");
