import { LatchkeyError, type ValidationIssue } from "./errors.js";

/**
 * Member names refused anywhere in a stored value: they change what an object is, not what it holds,
 * in the JavaScript that reads it back (prototype pollution).
 */
const DANGEROUS_MEMBERS = new Set(["__proto__", "constructor", "prototype"]);

/** A surrogate code unit not part of a pair (with the `u` flag, a pair is one code point and not matched). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** JSON pointer escaping (RFC 6901). */
const pointerPart = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");

/** What is wrong with one string, if anything: NUL (PostgreSQL refuses it) or a lone surrogate. */
function stringProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL (U+0000)";
  if (LONE_SURROGATE.test(text)) return "must be valid Unicode text (it contains a lone surrogate)";
  return undefined;
}

/**
 * The first thing in `value` latchkey cannot store faithfully: a string with NUL or a lone surrogate
 * (also as a member name), or a member named `__proto__`, `constructor` or `prototype`. `path` is the
 * JSON pointer of `value` itself. Iterative, so deep nesting cannot overflow the stack.
 */
export function findTextProblem(value: unknown, path = ""): ValidationIssue | undefined {
  return walk(value, path, true);
}

/**
 * The first member named `__proto__`, `constructor` or `prototype` in `value`, for what is parsed but
 * not necessarily stored (every JSON request body).
 */
export function findDangerousMember(value: unknown): ValidationIssue | undefined {
  return walk(value, "", false);
}

function walk(value: unknown, path: string, checkText: boolean): ValidationIssue | undefined {
  const pending: Array<[unknown, string]> = [[value, path]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, at] = next;
    if (typeof item === "string" && checkText) {
      const problem = stringProblem(item);
      if (problem) return { path: at || "/", message: problem };
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => pending.push([element, `${at}/${index}`]));
    } else if (item !== null && typeof item === "object") {
      for (const name of Object.keys(item)) {
        const memberPath = `${at}/${pointerPart(name)}`;
        if (DANGEROUS_MEMBERS.has(name)) {
          return { path: memberPath, message: `is not allowed: no member may be named ${name}` };
        }
        const problem = checkText ? stringProblem(name) : undefined;
        if (problem) return { path: memberPath, message: `is a member name that ${problem}` };
        pending.push([(item as Record<string, unknown>)[name], memberPath]);
      }
    }
  }
  return undefined;
}

/** Throws `400 invalid_request` naming the field when `value` holds text latchkey refuses to store. */
export function assertStorableText(value: unknown, path = ""): void {
  const issue = findTextProblem(value, path);
  if (issue) {
    throw new LatchkeyError("invalid_request", `Invalid request: ${issue.path} ${issue.message}.`, {
      validationErrors: [issue],
    });
  }
}
