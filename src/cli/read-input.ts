import { readFile } from "node:fs/promises";
import { UsageError } from "./exit-codes.js";

/** The text of a file argument, or of standard input for `-`; an unreadable file is a usage error. */
export async function readInput(source: string): Promise<string> {
  if (source !== "-") {
    return readFile(source, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(
        `Cannot read ${source}: ${error.code === "ENOENT" ? "no such file" : error.message}.`,
      );
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
