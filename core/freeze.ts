/**
 * Freezes `value` and what it holds, `levels` deep (1: the value alone; every level by default).
 * A value already frozen is taken as frozen with everything it holds, and left as it is.
 */
export function deepFreeze<T>(value: T, levels = Infinity): T {
  if (levels <= 0 || value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (levels === 1) return value;
  // for…in, not Object.values: no array of members per object (a list page freezes hundreds).
  for (const key in value) {
    const member = value[key] as unknown;
    if (member !== null && typeof member === "object") deepFreeze(member, levels - 1);
  }
  return value;
}
