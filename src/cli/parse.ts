import { InvalidArgumentError } from "commander";
import { MAX_PLAN_NUMBER } from "../domain/plan.js";

/** Commander argument parser for whole numbers; a bad value is a usage error, not a crash. */
export function parseInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a whole number.");
  return Number(value);
}

/** The largest plan number the CLI accepts; LATCHKEY_DEFAULT_IMAGE_CREDITS has the same bound. */
export { MAX_PLAN_NUMBER };

/** Commander argument parser for a plan number: a whole number from 0 to MAX_PLAN_NUMBER. */
export function parsePlanNumber(value: string): number {
  const number = parseInteger(value);
  if (number > MAX_PLAN_NUMBER) throw new InvalidArgumentError(`must be at most ${MAX_PLAN_NUMBER}.`);
  return number;
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Milliseconds since the epoch of an RFC 3339 date-time with seconds and an explicit offset (`Z` or
 * `+hh:mm`, so no local time zone sneaks in), or NaN. Every field is range-checked: `Date.parse` alone
 * would turn 2026-02-31 into March 3rd.
 */
export function parseRfc3339(value: string): number {
  const text = value.toUpperCase().replace(" ", "T");
  const match = RFC_3339.exec(text);
  if (!match) return NaN;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match
    .slice(1)
    .map((field) => Number(field ?? 0));
  if (
    year === undefined ||
    month === undefined ||
    day === undefined ||
    hour === undefined ||
    minute === undefined ||
    second === undefined ||
    offsetHours === undefined ||
    offsetMinutes === undefined
  )
    return NaN;
  const daysInMonth =
    new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !leapYear(year) ? 1 : 0);
  const inRange =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    // RFC 3339 allows a leap second (:60); JavaScript time has none, so it is refused, not moved.
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  return inRange ? Date.parse(text) : NaN;
}

function leapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Commander parser for `--page-size`: the REST `count`, a whole number from 1 to 100. */
export function parsePageSize(value: string): number {
  const size = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(size >= 1 && size <= 100)) throw new InvalidArgumentError("It must be a whole number from 1 to 100.");
  return size;
}

/**
 * Commander parser for a record's id argument: it must carry the family's prefix. An api_id (the
 * Basic-auth user name, `lkid_...`) is the usual mix-up, and gets a message of its own.
 */
export function idOf(prefix: string, what: string): (value: string) => string {
  return (value) => {
    if (value.startsWith(prefix) && value.length > prefix.length) return value;
    if (value.startsWith("lkid_"))
      throw new InvalidArgumentError(
        `That is an api_id (lkid_...), the Basic-auth user name; give the ${what}'s id (${prefix}...), as the ID column of 'list' shows it.`,
      );
    throw new InvalidArgumentError(`Expected the ${what}'s id (${prefix}...).`);
  };
}
