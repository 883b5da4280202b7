import { rememberStoredJson } from "../../core/stored-json.js";

/** Text of the records kept parsed, in UTF-16 code units (about twice that in memory with the records). */
export const defaultParsedRecordChars = 8 * 1024 * 1024;

/** A record longer than this is parsed each time and not kept: one must not push out hundreds. */
const longestKept = 64 * 1024;

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
 * that reads it, so it is frozen whole (core/stored-json.ts). Bounded by the total length of the
 * kept texts; the oldest go first.
 */
export class ParsedRecords {
  private readonly byId = new Map<string, { text: string; record: object }>();
  private chars = 0;

  constructor(private readonly maxChars = defaultParsedRecordChars) {}

  record<T extends object>(text: string): T {
    const id = text.startsWith(idPrefix) ? text.slice(idPrefix.length, text.indexOf('"', idPrefix.length)) : undefined;
    if (id === undefined || text.length > longestKept) return rememberStoredJson(JSON.parse(text) as T, text, { whole: true });
    const kept = this.byId.get(id);
    if (kept !== undefined && kept.text === text) return kept.record as T;
    const record = rememberStoredJson(JSON.parse(text) as T, text, { whole: true });
    this.keep(id, text, record);
    return record;
  }

  /** How many records are kept, and the length of their texts. */
  size(): { records: number; chars: number } {
    return { records: this.byId.size, chars: this.chars };
  }

  private keep(id: string, text: string, record: object): void {
    const replaced = this.byId.get(id);
    if (replaced !== undefined) {
      this.byId.delete(id);
      this.chars -= replaced.text.length;
    }
    if (this.maxChars <= 0) return;
    this.byId.set(id, { text, record });
    this.chars += text.length;
    for (const [oldest, entry] of this.byId) {
      if (this.chars <= this.maxChars) break;
      this.byId.delete(oldest);
      this.chars -= entry.text.length;
    }
  }
}
