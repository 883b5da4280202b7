/**
 * What every stored record kind offers, written once: the storage port (storage.ts) gives each
 * resource one of these plus the few methods that are its own. "Live" means not soft-deleted,
 * for the kinds that soft-delete; no method hands back a record that is not live unless it says so.
 */

export interface PageRequest {
  /** Rows to return at most. */
  limit: number;
  /** Keyset position: return only records whose id sorts before this one (newest first). */
  beforeId?: string;
}

/** A kind of record an organization owns, written and read by id, listed newest first. */
export interface RecordRepository<T, F> {
  /** Throws conflict when the id, or another unique key the kind names, is taken. */
  insert(record: T): Promise<void>;
  /** The organization's live record, or null (unknown, another organization's and deleted ids alike). */
  findById(organizationId: string, id: string): Promise<T | null>;
  /**
   * Writes every field but the identity and creation ones (id, organizationId, createdAt,
   * createdBy, and a parent's id) of the organization's live record; setting `deletedAt`, where
   * the kind has it, is the soft delete. False when there is no such record.
   */
  update(record: T): Promise<boolean>;
  /** Newest first (descending id), at most `page.limit` live records matching `filter`. */
  list(organizationId: string, filter: F, page: PageRequest): Promise<T[]>;
}

/** Reads a bulk page of records at once. */
export interface BatchReads<T> {
  /** The organization's live records among `ids` (at most 500), in any order; one query. */
  findMany(organizationId: string, ids: readonly string[]): Promise<T[]>;
}

/**
 * A group entry's items, handed to the storage as they are made (a bulk operation's pages) so a
 * large group is never held whole: the storage may write them out at once, invisible to readers
 * until the group's own row is appended (last, in the same unit).
 */
export interface GroupItemsWriter<T> {
  /** Adds items after those added before. Resolves once what it wrote has: await it before the unit's next statement. */
  add(items: readonly T[]): Promise<void>;
  /** Items added so far. */
  readonly count: number;
}

/** An append-only log of an organization: entries are written once and never changed. */
export interface AppendOnlyLog<T> {
  append(entry: T): Promise<void>;
  /** `append` for many entries (a bulk page) in as few statements as the database allows; all or none. */
  appendMany(entries: readonly T[]): Promise<void>;
}
