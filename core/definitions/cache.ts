import { rememberBounded } from "../bounded-map.js";
import { deepFreeze } from "../freeze.js";
import type { UnitOfWork } from "../ports/storage.js";

/** Organizations whose definitions the cache holds at most by default; the least recently used go first. */
export const defaultDefinitionsCacheEntries = 1_000;

/**
 * An organization's definitions — its lifecycles, custom field definitions and case types — kept
 * in memory between units of work, in the spirit of the access cache (core/access/access-cache.ts):
 * every read first asks the unit for the organization's definitions version
 * (OrganizationRepository.definitionsVersion) and reuses what it holds only when it was read at
 * that same version. The adapters give the version a value never seen before in the same
 * transaction as every write of a definition (database triggers, see the migrations), so a unit
 * never uses definitions older than what it would read itself — on this host or any other sharing
 * the database. Nothing is time-based.
 *
 * The version costs nothing in a writing unit: the adapter reads it with the organization's
 * counters, which the unit reads and holds anyway (a case create's first statement), and holding
 * that row keeps any other definitions write from committing before the unit ends. A read-only
 * unit pays one primary-key lookup per read.
 *
 * Each kind of definition is a named slot of the organization's entry (`lifecycle:case`,
 * `custom-fields`, `case-type:<key>` …), loaded by its own module on first use at a version.
 * What is loaded is kept only if the version is the same after the load (a storage whose reads are
 * not one snapshot may see a newer write meanwhile); values are deep-frozen, since every unit
 * shares them. A unit that wrote definitions itself sees a version its own writes made, so it
 * loads what it wrote; if it rolls back, that version never comes back, and its entry is never
 * matched again.
 */
export interface DefinitionsCache {
  /**
   * The value of `slot` for the organization as `tx` sees it: the one held at the unit's version,
   * else `load()`'s (kept when `keep` allows it: a lookup that found nothing need not be).
   */
  read<T>(tx: UnitOfWork, organizationId: string, slot: string, load: () => Promise<T>, keep?: (value: T) => boolean): Promise<T>;
  /** Organizations held now: for tests and metrics. */
  size(): number;
}

interface Entry {
  version: number;
  slots: Map<string, unknown>;
}

export function createDefinitionsCache(options: { maxEntries?: number } = {}): DefinitionsCache {
  const maxEntries = Math.max(0, Math.floor(options.maxEntries ?? defaultDefinitionsCacheEntries));
  const entries = new Map<string, Entry>();

  /** The organization's entry at `version`, most recently used; a new one replaces another version's. */
  function entryAt(organizationId: string, version: number): Entry {
    const held = entries.get(organizationId);
    const entry = held !== undefined && held.version === version ? held : { version, slots: new Map() };
    rememberBounded(entries, organizationId, entry, maxEntries);
    return entry;
  }

  return {
    async read<T>(tx: UnitOfWork, organizationId: string, slot: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
      if (maxEntries === 0) return deepFreeze(await load());
      const version = await tx.organizations.definitionsVersion(organizationId);
      // No such organization: nothing to key an entry on (and nothing defined).
      if (version === null) return deepFreeze(await load());
      const entry = entryAt(organizationId, version);
      if (entry.slots.has(slot)) return entry.slots.get(slot) as T;
      const value = deepFreeze(await load());
      if (keep(value) && entries.get(organizationId) === entry && (await tx.organizations.definitionsVersion(organizationId)) === version) entry.slots.set(slot, value);
      return value;
    },
    size: () => entries.size,
  };
}
