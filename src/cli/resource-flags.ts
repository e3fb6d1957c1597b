import { readFileSync } from "node:fs";
import type { ResourceContent, ResourceRecord } from "@latchkey/client";
import { UsageError } from "./exit-codes.js";

/** Flags of `create` and `update` of a resource family. */
export interface ResourceFlags {
  name?: string;
  /** A JSON object, as text. */
  settings?: string;
  /** A file holding a JSON object; `-` reads standard input. */
  settingsFile?: string;
  disabled?: boolean;
  enabled?: boolean;
}

/** The settings the flags give, or undefined when neither `--settings` nor `--settings-file` was given. */
function settingsOf(flags: ResourceFlags): Record<string, unknown> | undefined {
  if (flags.settings !== undefined && flags.settingsFile !== undefined) {
    throw new UsageError("Give --settings or --settings-file, not both.");
  }
  let text: string;
  let source: string;
  if (flags.settings !== undefined) {
    text = flags.settings;
    source = "--settings";
  } else if (flags.settingsFile !== undefined) {
    source = flags.settingsFile === "-" ? "standard input" : flags.settingsFile;
    try {
      text = readFileSync(flags.settingsFile === "-" ? 0 : flags.settingsFile, "utf8");
    } catch (error) {
      throw new UsageError(`Cannot read ${source}: ${(error as Error).message}`);
    }
  } else {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${source} is not valid JSON.`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${source} must be a JSON object, like {"region": "eu-west-1"}.`);
  }
  return value as Record<string, unknown>;
}

/** The body of `create`: `--name` is required, as the server requires it. */
export function createContent(flags: ResourceFlags): ResourceContent {
  if (flags.name === undefined) throw new UsageError("Give --name: every record needs a name.");
  if (flags.enabled && flags.disabled)
    throw new UsageError("--disabled and --enabled contradict each other.");
  const settings = settingsOf(flags);
  return { name: flags.name, disabled: flags.disabled ?? false, ...(settings ? { settings } : {}) };
}

/**
 * The body of `update`: the record's current content with the given flags applied. The server replaces
 * the whole content, so starting from the current one keeps what a person did not mention.
 */
export function updatedContent(current: ResourceRecord, flags: ResourceFlags): ResourceContent {
  checkUpdateFlags(flags);
  return {
    name: flags.name ?? current.name,
    disabled: flags.disabled ? true : flags.enabled ? false : !current.enabled,
    settings: settingsOf(flags) ?? current.settings,
  };
}

/** Refuses an `update` that would change nothing or contradicts itself, before any request is sent. */
export function checkUpdateFlags(flags: ResourceFlags): void {
  const given = [flags.name, flags.settings, flags.settingsFile, flags.disabled, flags.enabled];
  if (given.every((value) => value === undefined)) {
    throw new UsageError(
      "Nothing to change: give at least one of --name, --settings, --settings-file, --disabled, --enabled.",
    );
  }
  if (flags.enabled && flags.disabled) {
    throw new UsageError("--disabled and --enabled contradict each other.");
  }
}
