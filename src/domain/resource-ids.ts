import { randomBase62 } from "./credentials.js";
import type { ResourceFamily } from "./resource-families.js";

/** Random characters after the prefix: 22 base62 characters carry 130 random bits, as key ids do. */
const ID_BODY_LENGTH = 22;

/** A new record id of the family, e.g. `prx_` + 22 base62 characters. */
export function newResourceId(family: ResourceFamily): string {
  return family.idPrefix + randomBase62(ID_BODY_LENGTH);
}

/** The pattern of the family's ids, as JSON Schema and the list cursor check them. */
export function resourceIdPattern(family: ResourceFamily): string {
  return `^${family.idPrefix}[0-9A-Za-z]{${ID_BODY_LENGTH}}$`;
}

/** Whether a string has the shape of one of the family's ids (another family's id does not). */
export function isResourceId(family: ResourceFamily, value: string): boolean {
  return new RegExp(resourceIdPattern(family)).test(value);
}
