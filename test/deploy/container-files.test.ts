import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { parse } from "yaml";

// No Docker engine runs on the machines this project is built on, so the image is never built here;
// hadolint is not available either. These checks hold the files to what docs/container.md promises.
const root = new URL("../../", import.meta.url).pathname;

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { keyword: string; args: string }[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
    });
}

const dockerfile = instructions(readFileSync(join(root, "Dockerfile"), "utf8"));
const finalStage = dockerfile.slice(dockerfile.map((step) => step.keyword).lastIndexOf("FROM"));
const argsOf = (keyword: string) =>
  finalStage.filter((step) => step.keyword === keyword).map((step) => step.args);

test("the Dockerfile builds in one stage and runs from a slim second stage as a non-root user", () => {
  const stages = dockerfile.filter((step) => step.keyword === "FROM");
  expect(stages.length).toBeGreaterThanOrEqual(2);
  expect(stages[0]?.args).toMatch(/^node:20\S* AS build$/);
  expect(argsOf("USER").at(-1)).toMatch(/^(node|\d+)$/);
  expect(argsOf("USER").at(-1)).not.toBe("root");
  expect(
    dockerfile.some((step) => step.keyword === "RUN" && /npm ci\b.*npm run build\b/.test(step.args)),
  ).toBe(true);
  expect(finalStage.some((step) => step.keyword === "COPY" && step.args.includes("--from=build"))).toBe(true);
});

test("the container runs node dist/main.js under tini as PID 1, checks /readyz and keeps its data on a volume", () => {
  expect(JSON.parse(argsOf("ENTRYPOINT").at(-1) ?? "[]")).toEqual(["/usr/bin/tini", "--"]);
  expect(JSON.parse(argsOf("CMD").at(-1) ?? "[]")).toEqual(["node", "dist/main.js"]);
  expect(argsOf("HEALTHCHECK").at(-1)).toContain("/readyz");
  expect(argsOf("VOLUME").at(-1)).toContain("/data");
  expect(argsOf("ENV").join(" ")).toContain("LATCHKEY_DATABASE_URL=sqlite:/data/latchkey.db");
  expect(argsOf("ENV").join(" ")).toContain("HOST=0.0.0.0");
  expect(argsOf("EXPOSE")).toContain("8080");
});

interface ComposeService {
  build?: unknown;
  image?: string;
  init?: boolean;
  command?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}

test("compose.yaml runs latchkey over PostgreSQL and Redis, healthy first, published on localhost only", () => {
  const compose = parse(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const services = Object.entries(compose.services);
  const nodes = services.filter(([, service]) => service.environment?.LATCHKEY_DATABASE_URL !== undefined);
  expect(nodes.length).toBeGreaterThanOrEqual(2);
  expect(compose.services.postgres?.image).toMatch(/^postgres:/);
  expect(compose.services.redis?.image).toMatch(/^redis:/);
  for (const [, node] of nodes) {
    expect(node.environment?.LATCHKEY_DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
    expect(node.environment?.LATCHKEY_REDIS_URL).toBe("redis://redis:6379");
    expect(node.environment?.LATCHKEY_BOOTSTRAP_FILE).toMatch(/^\/data\//);
    expect(node.depends_on).toEqual({
      "server-key": { condition: "service_completed_successfully" },
      postgres: { condition: "service_healthy" },
      redis: { condition: "service_healthy" },
    });
    // tini is the image's entrypoint already: `init: true` would put a second init in front of it.
    expect(node.init).toBeUndefined();
    for (const port of node.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
  }
  expect(compose.services.postgres?.healthcheck).toBeDefined();
  expect(compose.services.redis?.healthcheck).toBeDefined();
});

test("compose.yaml gives every node the same server key, made once on the shared volume before they start", () => {
  const compose = parse(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const maker = compose.services["server-key"];
  const nodes = Object.values(compose.services).filter((s) => s.environment?.LATCHKEY_DATABASE_URL);
  const keyFile = nodes[0]?.environment?.LATCHKEY_SERVER_KEY_FILE ?? "";
  expect(keyFile).toMatch(/^\/data\/\S+$/);
  for (const node of nodes) {
    expect(node.environment?.LATCHKEY_SERVER_KEY_FILE).toBe(keyFile);
    expect(node.volumes).toEqual(maker?.volumes);
  }
  // Made only when missing (a restart keeps it), 0600, 32 random bytes.
  const script = maker?.command?.join(" ") ?? "";
  expect(script).toContain(`[ -s ${keyFile} ] ||`);
  expect(script).toContain("umask 077");
  expect(script).toContain("head -c 32 /dev/urandom");
});
