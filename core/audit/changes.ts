import type { AuditChange } from "./types.js";
import { canonicalJson } from "../log/chain.js";
import { maskSecrets } from "./secrets.js";

/** Fields every update moves: no audit event lists them. */
const unaudited = new Set(["updatedAt"]);

/**
 * What changed from `before` to `after`, one entry per changed leaf: plain objects (custom
 * fields, nested settings) are walked into, so a change is `customFields.severity`, not the
 * whole map; arrays and scalars are compared whole. Secrets are masked here (secrets.ts), before
 * anything is stored.
 */
export function diffChanges(before: object, after: object): AuditChange[] {
  const changes: AuditChange[] = [];
  walk(before as Record<string, unknown>, after as Record<string, unknown>, "", changes);
  return maskSecrets(changes);
}

function walk(a: Record<string, unknown>, b: Record<string, unknown>, prefix: string, out: AuditChange[]): void {
  const top = prefix === "";
  // A record's own fields are the after record's (no Set per record: bulks diff 100 000 of them);
  // a nested object's are both sides' (a key removed is a change too).
  for (const key of top ? Object.keys(b) : keysOfBoth(a, b)) {
    if (top && unaudited.has(key)) continue;
    const x = a[key];
    const y = b[key];
    // The same value (or the same object) needs no serialising: bulk operations diff many records.
    if (x === y) continue;
    const path = prefix + key;
    if (isPlainObject(x) && isPlainObject(y)) {
      walk(x, y, `${path}.`, out);
      continue;
    }
    if (isObject(x) && isObject(y) && canonicalJson(x) === canonicalJson(y)) continue;
    if (x === undefined && y === undefined) continue;
    out.push({ path, before: x ?? null, after: y ?? null });
  }
}

/** What a deletion for good removed: every value of the record, before it, after null (secrets masked). */
export function removedChanges(record: object): AuditChange[] {
  return diffChanges({}, record).map(({ path, before, after }) => ({ path, before: after, after: before }));
}

/** The keys of `b`, then those only `a` has. */
function keysOfBoth(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = Object.keys(b);
  for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) keys.push(key);
  return keys;
}

const isObject = (value: unknown): value is object => value !== null && typeof value === "object";
const isPlainObject = (value: unknown): value is Record<string, unknown> => isObject(value) && !Array.isArray(value);

/**
 * The changes of a stored row in today's form: rows written before audit events kept a map
 * `{ field: { from, to } }` (or null); they read as the same list.
 */
export function changesOf(stored: unknown): AuditChange[] {
  if (Array.isArray(stored)) return stored as AuditChange[];
  if (!isPlainObject(stored)) return [];
  return Object.entries(stored).map(([path, value]) => {
    const { from, to } = (isPlainObject(value) ? value : {}) as { from?: unknown; to?: unknown };
    return { path, before: from ?? null, after: to ?? null };
  });
}
