import { CaseKitError } from "../errors.js";

/** Most records one bulk request may touch unless the deployment sets another figure. */
export const defaultBulkMaxRows = 10_000;

/** The configured maximum, or the default; a figure that is not a whole number ≥ 1 stops the start. */
export function checkedBulkMaxRows(value: number | undefined): number {
  if (value === undefined) return defaultBulkMaxRows;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`config.bulkMaxRows must be a whole number of at least 1, not ${value}`);
  return value;
}

/**
 * Refuses a bulk request that would touch more than `maxRows` records (the ids it names, or what
 * its selectAll matches), before anything is changed: bulk_too_large (400), the maximum in the
 * problem's `maxRows` member, so one request cannot hold the database for as long as it likes.
 */
export function refuseAboveMaxRows(count: number, maxRows: number, kind: "ids" | "all"): void {
  if (count <= maxRows) return;
  const path = kind === "ids" ? "ids" : "options.selectAll";
  const message =
    kind === "ids"
      ? `names ${count} records; this deployment allows at most ${maxRows} per bulk request`
      : `matches more than ${maxRows} records; this deployment allows at most ${maxRows} per bulk request: narrow options.filters`;
  throw new CaseKitError("bulk_too_large", `${path} ${message}`, [{ path, message }], { maxRows });
}
