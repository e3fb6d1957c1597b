import { type Html, html } from "../html.js";

const HEIGHT = 120;
const BAR = 10;
const GAP = 2;

/**
 * A bar chart as inline SVG, drawn on the server (no script, no library): one bar per interval,
 * oldest left. Each bar has a <title>, so hovering, and a screen reader, tells its value; the table
 * beside it (see usage.ts) carries the same numbers for those who prefer text.
 */
export function barChart(label: string, bars: { start: number; value: number; label: string }[]): Html {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const width = bars.length * (BAR + GAP);
  return html`<svg
    class="chart"
    role="img"
    aria-label="${label}"
    viewBox="0 0 ${width} ${HEIGHT + 14}"
    preserveAspectRatio="none"
  >
    <line class="axis" x1="0" y1="${HEIGHT}" x2="${width}" y2="${HEIGHT}"></line>
    ${bars.map((bar, index) => {
      const height = Math.round((bar.value / max) * (HEIGHT - 4));
      return html`<rect
        class="bar"
        x="${index * (BAR + GAP)}"
        y="${HEIGHT - height}"
        width="${BAR}"
        height="${height}"
        ><title>${bar.label}: ${bar.value}</title></rect
      >`;
    })}
    <text x="0" y="${HEIGHT + 12}">${bars[0]?.label ?? ""}</text>
    <text x="${width}" y="${HEIGHT + 12}" text-anchor="end">${bars[bars.length - 1]?.label ?? ""}</text>
    <text x="0" y="10">max ${max}</text>
  </svg>`;
}

/** `count` consecutive intervals ending with the one holding `now`, each with its value (0 when absent). */
export function series(
  values: Record<string, number>,
  now: number,
  count: number,
  stepMs: number,
  format: (start: number) => string,
): { start: number; value: number; label: string }[] {
  const last = Math.floor(now / stepMs) * stepMs;
  return Array.from({ length: count }, (_, index) => {
    const start = last - (count - 1 - index) * stepMs;
    return { start, value: values[new Date(start).toISOString()] ?? 0, label: format(start) };
  });
}
