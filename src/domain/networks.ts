import { BlockList, isIP } from "node:net";
import { LatchkeyError, type ValidationIssue } from "./errors.js";

/** Networks one key may list in `allowed_cidrs`. */
export const MAX_ALLOWED_CIDRS = 50;

/** A CIDR's prefix: decimal, no sign, no leading zero (so `10.0.0.0/08` is not read two ways). */
const PREFIX = /^(0|[1-9][0-9]{0,2})$/;

/**
 * What is wrong with one CIDR (`203.0.113.0/24`, `2001:db8::/32`), if anything. The address is checked
 * by node:net's `isIP`; a zone (`fe80::1%eth0`) is refused, since it names an interface of this machine,
 * not a network; host bits are allowed, the prefix decides (`10.1.2.3/8` is all of 10.0.0.0/8).
 */
export function cidrProblem(text: string): string | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return `"${text}" is not a CIDR: write an address and a prefix, e.g. 203.0.113.0/24`;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  const family = address.includes("%") ? 0 : isIP(address);
  if (family === 0) return `"${text}" is not a CIDR: "${address}" is not an IPv4 or IPv6 address`;
  const bits = family === 4 ? 32 : 128;
  if (!PREFIX.test(prefix) || Number(prefix) > bits) {
    return `"${text}" is not a CIDR: the prefix must be a whole number from 0 to ${bits}`;
  }
  return undefined;
}

/** The issues of an `allowed_cidrs` list, each naming its member (`/allowed_cidrs/3`). */
export function allowedCidrsIssues(cidrs: readonly string[], path = "/allowed_cidrs"): ValidationIssue[] {
  if (cidrs.length > MAX_ALLOWED_CIDRS) {
    return [{ path, message: `must list at most ${MAX_ALLOWED_CIDRS} networks (it lists ${cidrs.length})` }];
  }
  const issues: ValidationIssue[] = [];
  cidrs.forEach((cidr, index) => {
    const problem = cidrProblem(cidr);
    if (problem) issues.push({ path: `${path}/${index}`, message: problem });
  });
  return issues;
}

/** A block list of valid CIDRs (each checked by `cidrProblem` before). */
export function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const slash = cidr.indexOf("/");
    const address = cidr.slice(0, slash);
    list.addSubnet(address, Number(cidr.slice(slash + 1)), isIP(address) === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

/**
 * Block lists of the keys' `allowed_cidrs`, built once per list: a cached key's list is the same
 * (frozen) array on every request, so a key limited to networks costs one lookup, not a rebuild.
 */
const listsOf = new WeakMap<readonly string[], BlockList>();

/**
 * Whether `address` is inside one of `cidrs`. An IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, what a
 * dual-stack socket reports) matches the IPv4 networks, as node:net's BlockList does.
 */
export function networksAllow(cidrs: readonly string[], address: string | undefined): boolean {
  if (address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  let list = listsOf.get(cidrs);
  if (!list) {
    list = blockListOf(cidrs);
    listsOf.set(cidrs, list);
  }
  return list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * `403 ip_not_allowed`, naming the address seen (the caller's own, which it may know anyway) or why
 * none is known; never the key's networks, which are its owner's business.
 */
export function ipNotAllowed(address: string | undefined, missing: string): LatchkeyError {
  return new LatchkeyError(
    "ip_not_allowed",
    address === undefined
      ? `This key may be used only from its allowed networks, and no client address is known: ${missing}.`
      : `This key may not be used from ${address}: the address is outside the key's allowed networks.`,
  );
}
