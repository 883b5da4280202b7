/**
 * Inserts `key` as the newest entry of `map`, dropping the oldest past `max` (none kept when `max`
 * is 0). With a lookup that inserts again on a hit, the map keeps the most recently used. The one
 * way casekit's in-memory caches stay bounded.
 */
export function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (max === 0) return;
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}
