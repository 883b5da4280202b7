/**
 * A record's values after a write that names only some fields (a bulk's `fields.customFields`):
 * `set` replaces those keys, `cleared` removes keys, every other value stays as the record holds it.
 */
export function mergedValues(current: Record<string, unknown>, set: Record<string, unknown>, cleared: readonly string[]): Record<string, unknown> {
  const out = { ...current, ...set };
  for (const key of cleared) delete out[key];
  return out;
}
