import { InvalidArgumentError } from "commander";

/** One window as the wire names it: `quota` requests per `window_seconds`. */
export interface WindowFlag {
  quota: number;
  window_seconds: number;
}

/**
 * `5/60,500/3600`: windows as every rate-limit flag of the CLI takes them (`keys --rate-limit`, `org
 * limits --policy`), each `<quota>/<window seconds>`; undefined when the text is not that. The ranges
 * (windows per group, 1 s to 31 days) are the server's to check, so both modes of a command agree.
 */
export function parseWindows(text: string): WindowFlag[] | undefined {
  const windows = text.split(",").map((window) => /^(\d+)\/(\d+)$/.exec(window.trim()));
  if (windows.some((match) => match === null)) return undefined;
  return windows.map((match) => ({ quota: Number(match?.[1]), window_seconds: Number(match?.[2]) }));
}

/** Windows written back as the flags take them: `5/60,500/3600`. */
export function formatWindows(policies: readonly WindowFlag[]): string {
  return policies.map((policy) => `${policy.quota}/${policy.window_seconds}`).join(",");
}

/** `--per`: whether each key counts on its own (`key`) or all the organization's keys together. */
export function parsePer(value: string): "organization" | "key" {
  if (value !== "organization" && value !== "key")
    throw new InvalidArgumentError("must be organization or key.");
  return value;
}
