import { readFileSync } from "node:fs";

/**
 * A file named by a setting, read and parsed at start: one that cannot be read or parsed stops the
 * start with a message naming the setting, the file and (from `parse`) the line.
 */
export function loadSettingFile<T>(
  setting: string,
  path: string,
  parse: (text: string, source: string) => T,
): T {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`${setting}: cannot read ${path}: ${(error as Error).message}`);
  }
  return parse(text, `${setting} ${path}`);
}
