import { dropOldest } from "../../core/bounded-map.js";
import { rememberStoredJson } from "../../core/stored-json.js";

/** Text of the records kept parsed, in UTF-16 code units (about twice that in memory with the records). */
export const defaultParsedRecordChars = 8 * 1024 * 1024;

/** A record longer than this is parsed each time and not kept: one must not push out hundreds. */
const longestKept = 64 * 1024;

/** Ids noted as read once, at most (then the notes start over). */
const maxSeenOnce = 65_536;

/**
 * How a selectRecord row starts when its resource declares its id first, as all but a few do
 * (a sign-in throttle is keyed by email: its rows are parsed every time). Ids hold no quote or
 * escape; were one cut short, the whole text's comparison would still tell records apart.
 */
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
 * a request gets is the statement's business, as before). A kept record is shared by every
 * request that reads it, so it is frozen whole (core/stored-json.ts); one not kept is frozen as
 * any read record is. A record is kept from its second read on, and the kept texts are bounded by
 * their total length; the oldest go first.
 */
export class ParsedRecords {
  private readonly byId = new Map<string, Kept>();
  private chars = 0;
  /** Records read once, not kept (see seenBefore): a hash of the id → the length of its text. */
  private readonly seenOnce = new Map<number, number>();

  constructor(private readonly maxChars = defaultParsedRecordChars) {
    // NaN would never be exceeded: the records would be kept without bound.
    if (!Number.isFinite(maxChars) || maxChars < 0) throw new Error(`casekit: parsedRecordChars must be a finite number ≥ 0, not ${maxChars}`);
  }

  record<T extends object>(text: string): T {
    const id = text.startsWith(idPrefix) ? text.slice(idPrefix.length, text.indexOf('"', idPrefix.length)) : undefined;
    if (id === undefined || text.length > longestKept || this.maxChars <= 0) return rememberStoredJson(JSON.parse(text) as T, text);
    const kept = this.byId.get(id);
    if (kept !== undefined && kept.text === text) return kept.record as T;
    // Only a record that is kept is shared, so only it is frozen whole.
    const keep = kept !== undefined || this.seenBefore(id, text.length);
    const record = rememberStoredJson(JSON.parse(text) as T, text, { whole: keep });
    if (keep) this.keep(id, { text, record });
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

  /** Keeps `kept` as the newest record, dropping the oldest while the texts are over the bound. */
  private keep(id: string, kept: Kept): void {
    const replaced = this.byId.get(id);
    if (replaced !== undefined) {
      // Deleted, not overwritten: the entry moves to the newest place, and the map does not keep
      // the old key, an id cut from the old text.
      this.byId.delete(id);
      this.chars -= replaced.text.length;
    }
    this.byId.set(id, kept);
    this.chars += kept.text.length;
    while (this.chars > this.maxChars) this.chars -= dropOldest(this.byId)![1].text.length;
  }
}

interface Kept {
  text: string;
  record: object;
}
