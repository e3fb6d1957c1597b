/** One runnable example block of a Markdown file: a ```sh block that calls curl. */
export interface CurlExample {
  /** Line of the opening fence, for messages. */
  line: number;
  /** "2xx", or the exact status every curl of the block must answer (```sh expect=403). */
  expect: string;
  script: string;
}

const FENCE = /^```sh(?:[ \t]+expect=(\d{3}))?[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;

/**
 * The ```sh blocks of a Markdown text that run curl, in order. Blocks of other languages (json, text,
 * console) and sh blocks without curl (operator commands such as `latchkey org plan`) are not examples
 * a reader runs against the server, so they are left out.
 */
export function curlExamples(markdown: string): CurlExample[] {
  const examples: CurlExample[] = [];
  for (const match of markdown.matchAll(FENCE)) {
    const script = match[2] ?? "";
    if (!/^\s*(?:\w+=\$\()?curl\s/m.test(script)) continue;
    examples.push({
      line: markdown.slice(0, match.index).split("\n").length,
      expect: match[1] ?? "2xx",
      script,
    });
  }
  return examples;
}
