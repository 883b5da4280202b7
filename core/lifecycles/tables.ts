/** A lifecycle read as the flat tables casekit exported before lifecycles were data. */
import type { Lifecycle } from "./types.js";

export const defaultKeys = (lifecycle: Lifecycle): readonly string[] => lifecycle.statuses.map((status) => status.key);

export const initialKeys = (lifecycle: Lifecycle): readonly string[] =>
  lifecycle.statuses.filter((status) => status.category === "new" || status.category === "in_progress").map((status) => status.key);

/** Keys of the statuses that are not final (an open task, an open record). */
export const openKeys = (lifecycle: Lifecycle): readonly string[] => lifecycle.statuses.filter((status) => !status.final).map((status) => status.key);

/** Each status's reachable statuses, whoever moves it (roles and gates aside). */
export function defaultTransitionTable(lifecycle: Lifecycle): Record<string, readonly string[]> {
  const table: Record<string, string[]> = Object.fromEntries(lifecycle.statuses.map((status) => [status.key, []]));
  for (const transition of lifecycle.transitions) {
    for (const from of transition.from) if (!table[from]!.includes(transition.to)) table[from]!.push(transition.to);
  }
  return table;
}
