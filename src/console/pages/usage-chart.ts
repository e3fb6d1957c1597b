import { type Html, html } from "../html.js";

/** Drawing units of one bar and the gap after it; the SVG is stretched to the page's width. */
const BAR = 10;
const GAP = 2;
const HEIGHT = 100;
/** Gridlines at 0, 1/4, 1/2, 3/4 and the whole of the scale (the stylesheet places their labels). */
const STEPS = 4;

export interface Bar {
  start: number;
  value: number;
  label: string;
}

/** Steps of the scale, times a power of ten: round numbers that waste little of the chart's height. */
const ROUND_STEPS = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** The top of the scale: four round steps that hold `max` (at least 4, so every label is whole). */
export function scaleTop(max: number): number {
  const rough = Math.max(1, max) / STEPS;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ROUND_STEPS.map((n) => n * power).find((n) => n >= rough) ?? 10 * power;
  return Math.max(STEPS, Math.ceil(step) * STEPS);
}

/**
 * A bar chart drawn on the server (no script, no library), oldest bar left: an SVG the width of the
 * page with gridlines, the scale's values beside it and the first, middle and last interval under it,
 * in HTML so that they stay legible however the drawing is stretched. Each bar names its interval and
 * value on hover (and to a screen reader); the table under the chart holds the same numbers.
 */
export function barChart(label: string, bars: Bar[], unit: string): Html {
  const top = scaleTop(Math.max(0, ...bars.map((bar) => bar.value)));
  const width = bars.length * (BAR + GAP) - GAP;
  const total = bars.reduce((sum, bar) => sum + bar.value, 0);
  const gridlines = Array.from({ length: STEPS + 1 }, (_, index) => (HEIGHT * index) / STEPS);
  const middle = bars[Math.floor((bars.length - 1) / 2)];
  return html`<figure class="chart">
    <div class="plot">
      <div class="y-axis" aria-hidden="true">
        ${gridlines.map((_, index) => html`<span>${(top * (STEPS - index)) / STEPS}</span>`)}
      </div>
      <svg role="img" aria-label="${label}" viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none">
        ${gridlines.map(
          (y) =>
            html`<line
              class="grid${y === HEIGHT ? " base" : ""}"
              x1="0"
              y1="${y}"
              x2="${width}"
              y2="${y}"
              vector-effect="non-scaling-stroke"
            ></line>`,
        )}
        ${bars.map((bar, index) => {
          const x = index * (BAR + GAP);
          const height = (bar.value / top) * HEIGHT;
          return html`<g class="bar">
            <title>${bar.label}: ${bar.value} ${unit}</title>
            <rect class="hit" x="${x}" y="0" width="${BAR}" height="${HEIGHT}"></rect>
            <rect class="value" x="${x}" y="${HEIGHT - height}" width="${BAR}" height="${height}"></rect>
          </g>`;
        })}
      </svg>
    </div>
    <div class="x-axis" aria-hidden="true">
      <span>${bars[0]?.label ?? ""}</span><span>${middle?.label ?? ""}</span
      ><span>${bars[bars.length - 1]?.label ?? ""}</span>
    </div>
    <figcaption>${total === 0 ? `No ${unit} in this time.` : `${total} ${unit} in all.`}</figcaption>
  </figure>`;
}

/** The intervals of a chart that have a value, as a table (the chart's numbers, for reading). */
export function barTable(caption: string, intervalTitle: string, bars: Bar[], unit: string): Html {
  const used = bars.filter((bar) => bar.value > 0);
  return html`<details>
    <summary>${caption}</summary>
    ${
      used.length === 0
        ? html`<p class="muted">No ${unit} in this time.</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">${intervalTitle}</th>
                <th scope="col">Images</th>
              </tr>
            </thead>
            <tbody>
              ${used.map(
                (bar) =>
                  html`<tr>
                    <td>${bar.label}</td>
                    <td>${bar.value}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </details>`;
}

/** `count` consecutive intervals ending with the one holding `now`, each with its value (0 when absent). */
export function series(
  values: Record<string, number>,
  now: number,
  count: number,
  stepMs: number,
  format: (start: number) => string,
): Bar[] {
  const last = Math.floor(now / stepMs) * stepMs;
  return Array.from({ length: count }, (_, index) => {
    const start = last - (count - 1 - index) * stepMs;
    return { start, value: values[new Date(start).toISOString()] ?? 0, label: format(start) };
  });
}
