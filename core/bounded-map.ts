/**
 * Each bounded map's own iterator over its entries, oldest first. Every entry it has passed was
 * dropped (only dropOldest moves it), and a key set again after a delete moves to the end, ahead
 * of it: its next entry is the oldest one left. A fresh iterator per eviction
 * (`map.keys().next()`) starts at the map's first slot and walks over every entry deleted since
 * the map last compacted: at 10 000 entries, one insert under churn cost 8 µs instead of 0.3.
 */
const oldestFirst = new WeakMap<Map<unknown, unknown>, Iterator<[unknown, unknown]>>();

/** Deletes the oldest entry of `map` and returns it; undefined when the map is empty. */
export function dropOldest<K, V>(map: Map<K, V>): [K, V] | undefined {
  const key = map as Map<unknown, unknown>;
  let oldest = oldestFirst.get(key)?.next();
  // A finished iterator stays finished (the map was emptied meanwhile): start another.
  if (oldest === undefined || oldest.done) {
    const entries = map.entries();
    oldestFirst.set(key, entries);
    oldest = entries.next();
  }
  if (oldest.done) return undefined;
  const entry = oldest.value as [K, V];
  map.delete(entry[0]);
  return entry;
}

/**
 * Inserts `key` as the newest entry of `map`, dropping the oldest past `max` (none kept when `max`
 * is 0). With a lookup that inserts again on a hit, the map keeps the most recently used. The one
 * way casekit's in-memory caches stay bounded (by a count; adapters/sqlite/parsed-records.ts
 * bounds by size with dropOldest).
 */
export function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (max === 0) return;
  map.set(key, value);
  while (map.size > max) dropOldest(map);
}
