import { rememberStoredJson } from "../../core/stored-json.js";

/** Text of the records kept parsed, in UTF-16 code units (about twice that in memory with the records). */
export const defaultParsedRecordChars = 8 * 1024 * 1024;

/** A record longer than this is parsed each time and not kept: one must not push out hundreds. */
const longestKept = 64 * 1024;

/** Ids noted as read once, at most (then the notes start over). */
const maxSeenOnce = 65_536;

/** Every selectRecord row starts so (its first member is the record's id; ids hold no quote or escape). */
const idPrefix = '{"id":"';

/**
 * Records read as JSON text (the `json_object` rows of SQLite's read units: what lists and reads
 * answer), parsed once while their text stays the same. A dashboard asks for the same page again
 * and again, and parsing its records, then freezing them and registering their text, was a fifth
 * of a list request (`JSON.parse` of 51 records alone 85–93 µs on the bench machine).
 *
 * A row is looked up by the id at the start of its text and used only if the whole text is the
 * same, character for character, as the text the kept record was parsed from: the record is then
 * exactly what parsing the row would give, so nothing can be stale (a change, on this host or
 * another, changes the text) and nothing is shared that the statement did not return (which rows
 * a request gets is the statement's business, as before). A record is shared by every request
 * that reads it, so it is frozen whole (core/stored-json.ts). A record is kept from its second
 * read on, and the kept texts are bounded by their total length; the oldest go first.
 */
export class ParsedRecords {
  private readonly byId = new Map<string, Kept>();
  /**
   * The kept entries in the order they were kept, oldest from `head` on; an entry replaced since
   * (a newer text of its id) stays here until passed over. A Map's own order would do, but taking
   * its first key walks over every entry deleted before it: evicting a record per miss went
   * quadratic during a walk through more records than are kept.
   */
  private order: { id: string; kept: Kept }[] = [];
  /** Records read once, not kept (see seenBefore): a hash of the id → the length of its text. */
  private readonly seenOnce = new Map<number, number>();
  private head = 0;
  private chars = 0;

  constructor(private readonly maxChars = defaultParsedRecordChars) {}

  record<T extends object>(text: string): T {
    const id = text.startsWith(idPrefix) ? text.slice(idPrefix.length, text.indexOf('"', idPrefix.length)) : undefined;
    if (id === undefined || text.length > longestKept || this.maxChars <= 0) return rememberStoredJson(JSON.parse(text) as T, text, { whole: true });
    const kept = this.byId.get(id);
    if (kept !== undefined && kept.text === text) return kept.record as T;
    const record = rememberStoredJson(JSON.parse(text) as T, text, { whole: true });
    if (kept !== undefined || this.seenBefore(id, text.length)) this.keep(id, { text, record });
    return record;
  }

  /**
   * Whether `id` was read before with a text of this length; notes it if not. A record is kept
   * from its second read on: one read once (a walk through every record, an export) would only
   * cost the kept records' collections. The note is a hash of the id and the length, small
   * numbers: an id cut from its text would hold the whole text. A collision only keeps a record
   * one read early.
   */
  private seenBefore(id: string, length: number): boolean {
    let hash = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
    if (this.seenOnce.get(hash) === length) return true;
    if (this.seenOnce.size >= maxSeenOnce) this.seenOnce.clear();
    this.seenOnce.set(hash, length);
    return false;
  }

  /** How many records are kept, and the length of their texts. */
  size(): { records: number; chars: number } {
    return { records: this.byId.size, chars: this.chars };
  }

  private keep(id: string, kept: Kept): void {
    const replaced = this.byId.get(id);
    if (replaced !== undefined) {
      // Deleted, not overwritten: the map would keep the old key, an id cut from the old text.
      this.byId.delete(id);
      this.chars -= replaced.text.length;
    }
    this.byId.set(id, kept);
    this.order.push({ id, kept });
    this.chars += kept.text.length;
    while (this.chars > this.maxChars && this.head < this.order.length) {
      const oldest = this.order[this.head++]!;
      if (this.byId.get(oldest.id) !== oldest.kept) continue; // replaced since: not kept any more
      this.byId.delete(oldest.id);
      this.chars -= oldest.kept.text.length;
    }
    // Passed-over and replaced entries are dropped once they outnumber the kept ones.
    if (this.order.length - this.head > 2 * this.byId.size + 1024) {
      this.order = this.order.slice(this.head).filter((entry) => this.byId.get(entry.id) === entry.kept);
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}

interface Kept {
  text: string;
  record: object;
}
