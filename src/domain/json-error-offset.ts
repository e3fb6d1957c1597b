/**
 * The offset of the first syntax error in a JSON text, or undefined when it is valid JSON.
 *
 * `JSON.parse` only sometimes says where it failed (Node 20 says "Unexpected token ']'" for a trailing
 * comma, with no position), and an operator fixing a file needs the line. This small recursive-descent
 * scanner follows RFC 8259 and stops at the first character that cannot continue the text.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;

  class Stop extends Error {
    constructor(readonly at: number) {
      super("json syntax error");
    }
  }
  const fail = (): never => {
    throw new Stop(i);
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const expect = (literal: string) => {
    for (const c of literal) {
      if (text[i] !== c) fail();
      i++;
    }
  };

  function string(): void {
    expect('"');
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return;
      }
      if (c < " ") fail();
      if (c === "\\") {
        i++;
        const escape = text[i];
        if (escape === "u") {
          i++;
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i] ?? "")) fail();
            i++;
          }
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) fail();
      }
      i++;
    }
    fail();
  }

  function number(): void {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail();
    i += (match as RegExpExecArray)[0].length;
  }

  function sequence(close: string, item: () => void): void {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      space();
      if (text[i] === ",") {
        i++;
        continue;
      }
      expect(close);
      return;
    }
  }

  function value(): void {
    space();
    const c = text[i];
    if (c === "{") {
      sequence("}", () => {
        space();
        string();
        space();
        expect(":");
        value();
      });
    } else if (c === "[") sequence("]", value);
    else if (c === '"') string();
    else if (c === "t") expect("true");
    else if (c === "f") expect("false");
    else if (c === "n") expect("null");
    else number();
  }

  try {
    value();
    space();
    if (i < text.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return error.at;
    throw error;
  }
}
