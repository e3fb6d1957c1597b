/**
 * Names and descriptions are set by whoever holds a key; escape control characters so a crafted name
 * can neither break a table nor send escape sequences to the terminal.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => {
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** At most `width` characters (code points), with an ellipsis when cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}

/** Rows as columns aligned by code points for a person, then a count line (`3 keys`). */
export function formatTable(header: string[], rows: string[][], count: string): string {
  const widths = header.map((title, column) =>
    Math.max([...title].length, ...rows.map((row) => [...(row[column] ?? "")].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell + " ".repeat((widths[column] ?? 0) - [...cell].length))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n${count}\n`;
}
