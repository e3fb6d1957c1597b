import { expect, test } from "vitest";
import { createRefusedCredentials } from "../../src/services/refused-credentials.js";
import { basicAuth } from "../helpers/build-test-app.js";

const API_ID = "lkid_4vJ2mQ8sT1xZ7bN3cP5dR9";
const OTHER = "lkid_9zZ9zZ9zZ9zZ9zZ9zZ9zZ9";

function refusals(options: { maxTracked?: number } = {}) {
  let now = 0;
  const lines: Array<Record<string, unknown>> = [];
  const refused = createRefusedCredentials({
    log: { warn: (details) => lines.push(details) },
    now: () => now,
    ...options,
  });
  return { refused, lines, advance: (ms: number) => (now += ms) };
}

test("the first refusal of an api_id is logged at once; later ones within the minute are only counted", () => {
  const { refused, lines, advance } = refusals();
  refused.note(basicAuth(API_ID, "lksk_wrong").authorization);
  for (let i = 0; i < 41; i += 1) {
    advance(1000);
    refused.note(basicAuth(API_ID, "lksk_wrong").authorization);
  }
  expect(lines).toEqual([{ api_id: API_ID, refused: 1, since_seconds: 0 }]);

  advance(19_000);
  refused.note(basicAuth(API_ID, "lksk_wrong").authorization);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toEqual({ api_id: API_ID, refused: 42, since_seconds: 60 });
});

test("each api_id has its own minute", () => {
  const { refused, lines } = refusals();
  refused.note(basicAuth(API_ID, "x").authorization);
  refused.note(basicAuth(OTHER, "x").authorization);
  refused.note(basicAuth(API_ID, "x").authorization);
  expect(lines.map((line) => line.api_id)).toEqual([API_ID, OTHER]);
});

test("what is not an api_id is never logged as one: a secret sent as the user name stays out of the log", () => {
  const { refused, lines, advance } = refusals();
  const secret = "lksk_9mcUmtDSPr4zGHM2D2gpxdr8cKzob5tP0Qo7mN";
  refused.note(basicAuth(secret, "").authorization);
  advance(60_000);
  refused.note(`Bearer ${secret}`);
  advance(60_000);
  refused.note(undefined);
  expect(JSON.stringify(lines)).not.toContain(secret);
  expect(lines.map((line) => line.api_id)).toEqual(["(malformed)", "(malformed)", "(none)"]);
});

test("past the number of api_ids followed, new ones are counted together under (other)", () => {
  const { refused, lines } = refusals({ maxTracked: 1 });
  refused.note(basicAuth(API_ID, "x").authorization);
  refused.note(basicAuth(OTHER, "x").authorization);
  expect(lines.map((line) => line.api_id)).toEqual([API_ID, "(other)"]);
});
