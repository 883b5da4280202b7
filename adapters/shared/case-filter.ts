import type { PageRequest } from "../../core/ports/storage.js";

/** The page's limit as a row count: a whole number, at least 0 (0 fetches nothing). */
export function pageLimit(page: PageRequest): number {
  const limit = Math.floor(page.limit);
  return Number.isFinite(limit) && limit > 0 ? limit : 0;
}
