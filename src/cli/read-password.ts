import { createInterface } from "node:readline";
import { UsageError } from "./exit-codes.js";

/** Reads standard input to its end (a pipe or a file): the password is its first line. */
async function firstLineOfStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text.split(/\r?\n/)[0] ?? "";
}

/** Asks on the terminal without echoing what is typed. */
function prompt(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const terminal = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    // Readline echoes every keystroke through _writeToOutput; after the question, nothing is shown.
    let asked = false;
    const writer = terminal as unknown as { _writeToOutput: (text: string) => void };
    writer._writeToOutput = (text: string) => {
      if (!asked) process.stderr.write(text);
    };
    terminal.question(question, (answer) => {
      process.stderr.write("\n");
      terminal.close();
      resolve(answer);
    });
    asked = true;
    terminal.on("SIGINT", () => {
      terminal.close();
      reject(new UsageError("cancelled"));
    });
  });
}

/**
 * A new user's password: typed twice at a terminal, or the first line of standard input when it is
 * a pipe (`printf '%s\n' "$PASSWORD" | latchkey user create ...`). Never a command-line argument:
 * those are visible to every user of the machine (`ps`) and kept in shell histories.
 */
export async function readNewPassword(question = "Password for the new user: "): Promise<string> {
  if (!process.stdin.isTTY) {
    const password = await firstLineOfStdin();
    if (password === "")
      throw new UsageError("no password on standard input: pipe it in, or run at a terminal.");
    return password;
  }
  const password = await prompt(question);
  const again = await prompt("Same password again: ");
  if (password !== again) throw new UsageError("the two passwords differ; nothing was saved.");
  return password;
}
