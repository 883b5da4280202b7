/**
 * THE rule of TLP inheritance: a record is as restricted as the most restricted record on the way
 * to it. Its effective TLP is the highest of its own marking and every ancestor's (a task's case;
 * an observable's case or alert; a comment's case, alert or task, and that task's case). Reads,
 * lists, events (and so webhook deliveries), bulk operations and the TLP audit log all decide with
 * this value; core/tlp/lineage.ts finds the ancestors.
 */
export function effectiveTlp(own: number, inherited: Iterable<number> = []): number {
  let highest = own;
  for (const tlp of inherited) if (tlp > highest) highest = tlp;
  return highest;
}
