// Renders a run's results into the generated block of bench/README.md.
import { readFileSync, writeFileSync } from "node:fs";

const START = "<!-- bench:results:start -->";
const END = "<!-- bench:results:end -->";

const fixed = (value, digits = 0) => (value === null ? "n/a" : value.toFixed(digits));
const percent = (value) => (value === null ? "n/a" : `${Math.round(value * 100)}%`);
const thousands = (value) => (value === null ? "n/a" : Math.round(value).toLocaleString("en-US"));

/** A Markdown table with padded columns, readable as plain text (run.mjs then runs the formatter). */
export function markdownTable(header, alignRight, rows) {
  const widths = header.map((cell, i) => Math.max(3, cell.length, ...rows.map((row) => row[i].length)));
  const pad = (cell, i) => (alignRight[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i]));
  const line = (cells) => `| ${cells.map(pad).join(" | ")} |`;
  const rule = widths.map((width, i) => (alignRight[i] ? `${"-".repeat(width - 1)}:` : "-".repeat(width)));
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map(line)].join("\n");
}

export function renderResults(results) {
  const { options, machine, targets, headline } = results;
  const bare = targets.bare.median;
  const rows = Object.entries(targets).map(([name, { description, median }]) => {
    const speed = median.requestsPerSecond / bare.requestsPerSecond;
    const cost = median.serverCpuUsPerRequest / bare.serverCpuUsPerRequest;
    return [
      `\`${name}\``,
      description,
      thousands(median.requestsPerSecond),
      fixed(median.p99Ms, 2),
      fixed(speed, 2),
      `${fixed(median.serverCpuUsPerRequest)} (${fixed(cost, 1)}x)`,
      percent(median.serverCpuUtilization),
      percent(median.loadGeneratorCpuUtilization),
      fixed(median.otherCpuCores, 2),
    ];
  });
  const header = [
    "target",
    "what it runs",
    "requests/s",
    "p99 ms",
    "vs bare",
    "server CPU µs/request (vs bare)",
    "server CPU",
    "load-generator CPU",
    "other processes (cores)",
  ];
  const verdict = headline.ratio >= headline.goal ? "met" : "not met";
  return [
    START,
    `Latest run: ${results.date} · \`${results.command}\` · Node ${machine.node} · ${machine.cpuModel} x ${machine.cpuCount} (${machine.platform}) · ` +
      `${options.connections} connections, pipelining ${options.pipelining}, ${options.rounds} interleaved rounds x ${options.duration} s (medians), ${options.warmup} s warm-up per target` +
      (results.source
        ? ` · commit ${results.source.commit}${results.source.srcModified ? " (src/ modified)" : ""}`
        : "") +
      (results.dist === "dist" ? "" : ` · latchkey build: \`${results.dist}\``),
    "",
    markdownTable(header, [false, false, true, true, true, true, true, true, true], rows),
    "",
    `**latchkey / bare = ${fixed(headline.ratio, 2)}** of requests/s (per round: ${headline.perRound.map((r) => fixed(r, 2)).join(", ")}); ` +
      `goal >= ${headline.goal.toFixed(2)}: **${verdict}**. ` +
      `Server CPU per request, bare / latchkey = ${fixed(headline.cpuCostRatio ?? null, 2)}; ` +
      `p99 latency ${fixed(targets.latchkey.median.p99Ms, 2)} ms against ${fixed(bare.p99Ms, 2)} ms.`,
    ...(results.ratios?.length
      ? [
          "",
          markdownTable(
            ["requests/s of", "over", "ratio (median)", "per round", "goal"],
            [false, false, true, true, false],
            results.ratios.map((r) => [
              `\`${r.numerator}\``,
              `\`${r.denominator}\``,
              fixed(r.ratio, 2),
              r.perRound.map((x) => fixed(x, 2)).join(", "),
              r.goal === null ? "-" : `>= ${r.goal} (${r.ratio >= r.goal ? "met" : "not met"})`,
            ]),
          ),
        ]
      : []),
    END,
  ].join("\n");
}

/** Replaces the generated block of the README; returns false when the markers are missing. */
export function updateReadme(path, results) {
  const text = readFileSync(path, "utf8");
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return false;
  writeFileSync(path, text.slice(0, start) + renderResults(results) + text.slice(end + END.length));
  return true;
}
