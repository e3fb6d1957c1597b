/**
 * The recipes of the README and docs/several-nodes.md as one bash script each, run in order on a fresh
 * copy of the repository (recipes.test.ts). Every ```sh block of such a file is a step; its fence says
 * what is special about it:
 *
 * - `install`: installs or builds (`npm ci`, `npm run build`). Run as written in the full run
 *   (`node bench/recipes.mjs`); in CI the copy gets this checkout's installed and built files instead.
 * - `background`: one command that runs until stopped (`npm start`), as in a terminal of its own. It is
 *   started in the background and waited for (`/readyz` on $PORT); the next `background` step, like the
 *   end of the file, first stops it with SIGTERM (Ctrl-C in the terminal), which must end it with
 *   status 0 and leave nothing listening on its port.
 * - `expect=NNN`: every curl of the step must answer NNN (2xx otherwise; test/docs/curl-wrapper.sh).
 * - `norun`: a step the recipe cannot run anywhere (a program it cannot assume, such as Claude Code or
 *   Docker): shown, never run. Anything else is refused, so that a new block is never left out silently.
 */
export interface RecipeStep {
  /** Line of the opening fence, for messages. */
  line: number;
  kind: "run" | "install" | "background" | "norun";
  /** "2xx", or the exact status every curl of the step must answer. */
  expect: string;
  script: string;
}

const SH_FENCE = /^```sh([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
const ATTRIBUTE = /^(install|background|norun|expect=\d{3})$/;

/** The ```sh blocks of a Markdown text, in order; throws on a fence attribute it does not know. */
export function recipeSteps(file: string, markdown: string): RecipeStep[] {
  const steps: RecipeStep[] = [];
  for (const match of markdown.matchAll(SH_FENCE)) {
    const line = markdown.slice(0, match.index).split("\n").length;
    const attributes = (match[1] ?? "").trim().split(/\s+/).filter(Boolean);
    const unknown = attributes.filter((attribute) => !ATTRIBUTE.test(attribute));
    if (unknown.length > 0) {
      throw new Error(
        `${file}:${line}: unknown fence attribute ${unknown.join(", ")} (recipes.ts says which)`,
      );
    }
    const kind =
      (["install", "background", "norun"] as const).find((name) => attributes.includes(name)) ?? "run";
    steps.push({
      line,
      kind,
      expect: /expect=(\d{3})/.exec(attributes.join(" "))?.[1] ?? "2xx",
      script: match[2] ?? "",
    });
  }
  return steps;
}

/**
 * A background step's one command, without its trailing comment, so that `&` can follow it. More than
 * one command cannot be stopped as one process: refused.
 */
function backgroundCommand(file: string, step: RecipeStep): string {
  const lines = step.script
    .split("\n")
    .map((text) => text.replace(/(^|\s)#.*$/, "").trim())
    .filter(Boolean);
  if (lines.length !== 1 || /[;&|]/.test(lines[0] ?? "")) {
    throw new Error(`${file}:${step.line}: a background step is one command (it is stopped as one process)`);
  }
  return lines[0] ?? "";
}

/** Bash run before a file's steps: stopping and waiting for a background step's process. */
const PRELUDE = String.raw`
__background=
__stop_background() {
  [[ -n $__background ]] || return 0
  kill -TERM "$__background"
  local status=0
  wait "$__background" || status=$?
  __background=
  if ((status != 0)); then
    echo "recipe: the background command exited with status $status after SIGTERM" >&2
    return 1
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "recipe: something still listens on port $PORT after the background command stopped" >&2
    return 1
  fi
}
__wait_ready() {
  local waited=0
  until command curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz"; do
    if ! kill -0 "$__background" 2>/dev/null; then
      echo "recipe: the background command ended before it answered on port $PORT" >&2
      return 1
    fi
    ((waited++ < RECIPE_WAIT_TENTHS)) || { echo "recipe: nothing answered on port $PORT" >&2; return 1; }
    sleep 0.1
  done
}
`;

/**
 * The bash script of a file's steps (after the substitutions the caller made), sourcing `curlWrapper`.
 * `installAsWritten` false replaces the install steps by a comment: the caller provided their result.
 */
export function recipeScript(
  file: string,
  steps: RecipeStep[],
  options: { curlWrapper: string; installAsWritten: boolean },
): string {
  const parts = ["set -euo pipefail", `source ${JSON.stringify(options.curlWrapper)}`, PRELUDE];
  for (const step of steps) {
    const where = `# ${file}:${step.line} (${step.kind})`;
    if (step.kind === "norun") continue;
    if (step.kind === "install" && !options.installAsWritten) {
      parts.push(`${where}: provided by the test, not run`);
      continue;
    }
    if (step.kind === "background") {
      parts.push(
        where,
        "__stop_background",
        `${backgroundCommand(file, step)} > "$RECIPE_LOGS/${step.line}.log" 2>&1 &`,
        "__background=$!",
        "__wait_ready",
      );
      continue;
    }
    parts.push(where, `export DOCS_EXPECT=${step.expect}`, step.script);
  }
  parts.push("# the end of the file: a background command still running is stopped", "__stop_background");
  return parts.join("\n");
}
