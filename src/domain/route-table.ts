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
  /** `"case_insensitive": true`: the upstream reads this route's path without regard to letter case. */
  caseInsensitive?: boolean | undefined;
  /** `"trailing_slash": true`: the upstream serves this route's path with or without a trailing slash. */
  trailingSlash?: boolean | undefined;
}

/**
 * What the table says of a request: the route, no route, or a path that matches a route asking
 * something else of the caller (or only matches a route) once letter case and a trailing slash are
 * ignored, as many upstreams read paths (Express by default): latchkey cannot know which handler
 * would run, so it refuses.
 */
export type RouteLookup =
  | { type: "route"; route: ForwardRoute }
  | { type: "none" }
  | { type: "ambiguous"; loose: ForwardRoute; exact: ForwardRoute | undefined };

/** A compiled route table: the first matching route wins. */
export interface RouteTable {
  readonly routes: readonly ForwardRoute[];
  /** The first route matching the path exactly as written (or as the route's own options allow). */
  match(method: string, path: string): ForwardRoute | undefined;
  /** `match`, refusing a path that a normalising upstream could route elsewhere (docs/gateways.md). */
  lookup(method: string, path: string): RouteLookup;
}

const MEMBERS = new Set([
  "method",
  "path",
  "permission",
  "group",
  "cost",
  "credits",
  "case_insensitive",
  "trailing_slash",
]);

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

/**
 * A route's path pattern as a regular expression. `anySlash`: a trailing slash is optional (the
 * pattern's own one included); `anyCase`: letter case is ignored.
 */
function compile(pattern: string, anySlash: boolean, anyCase: boolean): RegExp {
  const base = anySlash && pattern.length > 1 && pattern.endsWith("/") ? pattern.slice(0, -1) : pattern;
  const source = base
    .split(/(\*\*|\*)/)
    .map((part) =>
      part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}${anySlash ? "/?" : ""}$`, anyCase ? "i" : "");
}

function checkRoute(entry: unknown, knownGroup: (name: string) => boolean): string | ForwardRoute {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return "is not an object";
  const route = entry as Record<string, unknown>;
  const unknown = Object.keys(route).filter((name) => !MEMBERS.has(name));
  if (unknown.length > 0) return `has unknown member(s) ${unknown.join(", ")}`;
  const { method = "*", path, permission, group, cost, credits } = route;
  const { case_insensitive: caseInsensitive = false, trailing_slash: trailingSlash = false } = route;
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
  if (typeof caseInsensitive !== "boolean") return 'has "case_insensitive" that is not true or false';
  if (typeof trailingSlash !== "boolean") return 'has "trailing_slash" that is not true or false';
  return {
    method: method.toUpperCase(),
    path,
    permission,
    group,
    cost: cost as number | undefined,
    credits: credits as number | undefined,
    caseInsensitive,
    trailingSlash,
  };
}

/** Whether two routes ask the same of a caller: permission, group, cost and credits. */
function sameDemand(a: ForwardRoute, b: ForwardRoute): boolean {
  return a.permission === b.permission && a.group === b.group && a.cost === b.cost && a.credits === b.credits;
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
  const compiled = routes.map((route) => ({
    route,
    exact: compile(route.path, route.trailingSlash === true, route.caseInsensitive === true),
    loose: compile(route.path, true, true),
  }));
  const first = (method: string, path: string, which: "exact" | "loose") => {
    const upper = method.toUpperCase();
    return compiled.find(
      (entry) => (entry.route.method === "*" || entry.route.method === upper) && entry[which].test(path),
    )?.route;
  };
  return {
    routes,
    match: (method, path) => first(method, path, "exact"),
    lookup(method, path) {
      const exact = first(method, path, "exact");
      // An exact match also matches loosely, so `loose` is that route or one before it.
      const loose = first(method, path, "loose");
      if (loose === undefined) return { type: "none" };
      // Two routes that ask the same of the caller decide alike, whichever one the upstream runs.
      if (exact !== undefined && sameDemand(exact, loose)) return { type: "route", route: exact };
      return { type: "ambiguous", loose, exact };
    },
  };
}

/** The empty table: every forward-auth request is `no_route` until routes are configured. */
export const EMPTY_ROUTE_TABLE: RouteTable = parseRouteTable("[]");
