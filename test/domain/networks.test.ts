import { describe, expect, test } from "vitest";
import { clientAddress, type ClientOrigin } from "../../src/domain/client-address.js";
import { blockListOf, cidrProblem, networksAllow } from "../../src/domain/networks.js";
import { endOfPrefix } from "../../src/store/key-list-filters.js";

describe("cidrProblem", () => {
  test.each([
    "203.0.113.0/24",
    "0.0.0.0/0",
    "10.1.2.3/32",
    "2001:db8::/32",
    "::/0",
    "::ffff:10.0.0.0/104",
    "10.1.2.3/8",
  ])("%s is a CIDR", (cidr) => expect(cidrProblem(cidr)).toBeUndefined());

  test.each([
    ["203.0.113.7", "write an address and a prefix"],
    ["203.0.113.0/33", "from 0 to 32"],
    ["2001:db8::/129", "from 0 to 128"],
    ["10.0.0.0/08", "from 0 to 32"],
    ["10.0.0.0/+8", "from 0 to 32"],
    ["10.0.0.0/", "from 0 to 32"],
    ["10.0.0/8", "not an IPv4 or IPv6 address"],
    ["010.0.0.0/8", "not an IPv4 or IPv6 address"],
    ["fe80::1%eth0/64", "not an IPv4 or IPv6 address"],
    ["example.com/24", "not an IPv4 or IPv6 address"],
    [" 10.0.0.0/8", "not an IPv4 or IPv6 address"],
  ])("%s is refused: %s", (cidr, reason) => expect(cidrProblem(cidr)).toContain(reason));
});

describe("networksAllow", () => {
  const cidrs = ["203.0.113.0/24", "2001:db8::/32", "192.0.2.1/32"];
  test.each([
    ["203.0.113.255", true],
    ["203.0.114.0", false],
    ["192.0.2.1", true],
    ["192.0.2.2", false],
    ["2001:db8:ffff::1", true],
    ["2001:DB8::1", true],
    ["2001:db9::1", false],
    ["::ffff:203.0.113.7", true],
    ["not an address", false],
  ])("%s: %s", (address, allowed) => expect(networksAllow(cidrs, address)).toBe(allowed));

  test("no address is in no network, not even 0.0.0.0/0", () => {
    expect(networksAllow(["0.0.0.0/0", "::/0"], undefined)).toBe(false);
  });
});

describe("clientAddress", () => {
  const trusted = blockListOf(["10.0.0.0/8", "fd00::/8"]);
  const origin = (peer: string | undefined, forwardedFor?: string | string[]): ClientOrigin => ({
    peer,
    forwardedFor,
    missing: "none",
  });

  test.each([
    ["an untrusted peer, whatever the header says", origin("198.51.100.1", "203.0.113.7"), "198.51.100.1"],
    ["a trusted peer without a header", origin("10.0.0.1"), "10.0.0.1"],
    ["a trusted peer: the right-most hop", origin("10.0.0.1", "203.0.113.7"), "203.0.113.7"],
    [
      "trusted hops skipped from the right",
      origin("10.0.0.1", "203.0.113.7, 198.51.100.9, 10.0.0.2, fd00::1"),
      "198.51.100.9",
    ],
    ["every hop trusted: the left-most", origin("10.0.0.1", "10.0.0.3, 10.0.0.2"), "10.0.0.3"],
    ["repeated headers, joined in order", origin("10.0.0.1", ["203.0.113.7", "10.0.0.2"]), "203.0.113.7"],
    ["a mapped IPv4 peer", origin("::ffff:10.0.0.1", "203.0.113.7"), "203.0.113.7"],
    ["a hop that is not an address ends the walk", origin("10.0.0.1", "203.0.113.7, unknown"), "unknown"],
    [
      "no peer (forward-auth): the right-most hop",
      origin(undefined, "203.0.113.7, 198.51.100.9"),
      "198.51.100.9",
    ],
    ["no peer, no header", origin(undefined), undefined],
  ])("%s", (_label, request, expected) => expect(clientAddress(request, trusted)).toBe(expected));

  test("without trusted proxies, the peer is the client", () => {
    expect(clientAddress(origin("10.0.0.1", "203.0.113.7"), undefined)).toBe("10.0.0.1");
  });
});

describe("endOfPrefix", () => {
  test.each([
    ["abc", "abd"],
    ["a\u{10FFFF}", "b"],
    ["\u{10FFFF}", undefined],
    ["a\uD7FF", "a\uE000"],
  ])("%j ends before %j", (prefix, end) => expect(endOfPrefix(prefix)).toBe(end));
});
