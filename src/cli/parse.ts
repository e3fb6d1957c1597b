import { InvalidArgumentError } from "commander";

/** Commander argument parser for whole numbers; a bad value is a usage error, not a crash. */
export function parseInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a whole number.");
  return Number(value);
}
