/** How the console shows a time: UTC, to the minute ("never" for none). */
export const when = (ms: number | null): string =>
  ms === null ? "never" : new Date(ms).toISOString().replace("T", " ").slice(0, 16) + " UTC";

/** A time to the second, where seconds matter (a roll's overlap, an audit entry). */
export const toTheSecond = (ms: number): string =>
  new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC";
