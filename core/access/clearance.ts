/**
 * TLP numbers compared in one place. A clearance or a marking is a whole number from 0 (CLEAR) to
 * 4 (RED); anything else (NaN, ±Infinity, -1, 2.5, a string) is not a level, and a comparison with
 * it denies, so a bad value can never widen access ("fail closed").
 */
export const lowestTlp = 0;
export const highestTlp = 4;

export function isTlpLevel(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= lowestTlp && value <= highestTlp;
}

/** True only when both are TLP levels and the marking is at most the clearance. */
export function withinClearance(tlp: unknown, clearance: unknown): boolean {
  return isTlpLevel(tlp) && isTlpLevel(clearance) && tlp <= clearance;
}

/**
 * The highest marking a clearance may see, for list filters that compare in the database: the
 * clearance itself, or -1 (nothing at all) when it is not a level.
 */
export function visibleUpTo(clearance: unknown): number {
  return isTlpLevel(clearance) ? clearance : lowestTlp - 1;
}
