/**
 * How the alerts-by-source metric splits its time range (both dialects). The counters
 * (alert_source_counts) hold whole hours of createdAt, so they answer the part of [from, to) made
 * of whole hours; the partial hours at its edges are counted from the alerts themselves, each at
 * most an hour of rows. Without bounds everything is counters.
 */

/** A half-open range of createdAt, [from, to); an absent bound is unbounded. */
export interface TimeRange {
  from?: string;
  to?: string;
}

export interface SourceCountRanges {
  /** Hour-aligned bounds for the counters' buckets, or null when no whole hour lies inside. */
  counters: TimeRange | null;
  /** Ranges counted from the alerts: each shorter than two hours, none overlapping the counters. */
  edges: TimeRange[];
}

const hourMs = 3_600_000;

/** The hour an instant falls in, as canonical ISO text. */
export function hourOf(iso: string): string {
  return `${iso.slice(0, 13)}:00:00.000Z`;
}

/** The first hour boundary at or after an instant. */
function hourCeiling(iso: string): string {
  const floor = hourOf(iso);
  return floor === iso ? iso : new Date(Date.parse(floor) + hourMs).toISOString();
}

/** `from` and `to` are canonical ISO 8601 UTC timestamps (normalizeAlertSourceCountFilter). */
export function sourceCountRanges({ from, to }: TimeRange): SourceCountRanges {
  const countersFrom = from === undefined ? undefined : hourCeiling(from);
  const countersTo = to === undefined ? undefined : hourOf(to);
  if (countersFrom !== undefined && countersTo !== undefined && countersFrom >= countersTo) {
    // Not one whole hour inside: the range is a few partial hours, counted directly.
    return { counters: null, edges: [{ from, to }] };
  }
  const edges: TimeRange[] = [];
  if (from !== undefined && from !== countersFrom) edges.push({ from, to: countersFrom });
  if (to !== undefined && to !== countersTo) edges.push({ from: countersTo, to });
  return { counters: { from: countersFrom, to: countersTo }, edges };
}
