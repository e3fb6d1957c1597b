/** One runnable example block of a Markdown file: a ```sh block that calls curl, or one marked `run`. */
export interface CurlExample {
  /** Line of the opening fence, for messages. */
  line: number;
  /** "2xx", or the exact status every curl of the block must answer (```sh expect=403). */
  expect: string;
  script: string;
  /** Whether the block calls curl (each such block is counted in the curl log). */
  callsCurl: boolean;
}

const FENCE = /^```sh((?:[ \t]+(?:expect=\d{3}|run))*)[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;

/**
 * The ```sh blocks of a Markdown text that run curl, in order, and those marked ```sh run (a recipe
 * that works beside the server, such as the SQLite backup). Blocks of other languages (json, text,
 * console) and other sh blocks (operator commands such as `latchkey org plan`) are left out.
 */
export function curlExamples(markdown: string): CurlExample[] {
  const examples: CurlExample[] = [];
  for (const match of markdown.matchAll(FENCE)) {
    const attributes = match[1] ?? "";
    const script = match[2] ?? "";
    const callsCurl = /^\s*(?:\w+=\$\()?curl\s/m.test(script);
    if (!callsCurl && !/\brun\b/.test(attributes)) continue;
    examples.push({
      line: markdown.slice(0, match.index).split("\n").length,
      expect: /expect=(\d{3})/.exec(attributes)?.[1] ?? "2xx",
      script,
      callsCurl,
    });
  }
  return examples;
}
