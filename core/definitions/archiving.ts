/**
 * Definitions an organization shapes its records with (custom fields, case types) are archived,
 * never deleted while used: `archived` in a change sets or clears `archivedAt`, and archiving
 * again keeps the first archiving time.
 */
export function archivedAtAfter(before: string | null, archived: boolean | undefined, now: Date): string | null {
  if (archived === undefined) return before;
  return archived ? (before ?? now.toISOString()) : null;
}
