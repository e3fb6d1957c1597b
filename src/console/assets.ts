import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { CONSOLE_SCRIPT_TEXT } from "./script.js";
import { CONSOLE_STYLE_TEXT } from "./style.js";

/** A file the console serves at a name holding its hash, so that browsers may keep it a year. */
export interface ConsoleAsset {
  path: string;
  type: string;
  body: string;
}

function hashed(name: string, ext: string, type: string, body: string): ConsoleAsset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { path: `/console/assets/${name}-${hash}.${ext}`, type, body };
}

/** Pico CSS's classless stylesheet, full-width variant, as its package installed it (node_modules). */
const PICO = "@picocss/pico/css/pico.fluid.classless.min.css";
const DATA_SVG = /url\("data:image\/svg\+xml,([^"]*)"\)/g;

/**
 * Pico draws its checkbox ticks and select chevrons with `data:` SVG images, which the console's CSP
 * (`img-src 'self'`) refuses: each becomes a file of its own that latchkey serves, and the stylesheet
 * points at it. Nothing else of Pico changes.
 */
function servedIcons(css: string): { css: string; icons: ConsoleAsset[] } {
  const icons = new Map<string, ConsoleAsset>();
  const rewritten = css.replace(DATA_SVG, (_match, encoded: string) => {
    const svg = decodeURIComponent(encoded);
    const icon = icons.get(svg) ?? hashed("icon", "svg", "image/svg+xml", svg);
    icons.set(svg, icon);
    return `url("${icon.path}")`;
  });
  return { css: rewritten, icons: [...icons.values()] };
}

export interface ConsoleAssets {
  /** The one stylesheet: Pico CSS, then the console's own rules (style.ts). */
  style: ConsoleAsset;
  /** The one script: progressive enhancement only (script.ts). */
  script: ConsoleAsset;
  /** Pico's icons, served as files (see servedIcons). */
  icons: ConsoleAsset[];
}

let loaded: ConsoleAssets | undefined;

/**
 * The console's assets, read once: Pico from its package (a dependency: the built package has it in
 * node_modules, found from wherever this module was bundled to), the rest from code.
 */
export function consoleAssets(): ConsoleAssets {
  if (loaded) return loaded;
  const pico = readFileSync(createRequire(import.meta.url).resolve(PICO), "utf8");
  const { css, icons } = servedIcons(pico);
  loaded = {
    style: hashed("console", "css", "text/css; charset=utf-8", `${css}\n${CONSOLE_STYLE_TEXT}`),
    script: hashed("console", "js", "text/javascript; charset=utf-8", CONSOLE_SCRIPT_TEXT),
    icons,
  };
  return loaded;
}
