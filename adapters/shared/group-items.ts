/**
 * Where a group's items go, for the three logs alike (core/log/groups.ts): in the group's own row
 * when they are at most `itemsPerRow`, else in chunk rows of `itemsPerRow` (log_group_items), one
 * statement each with the event loop given a turn between two, and the row holds the marker.
 * Chunks are written before their group's row, in the same unit, so a reader that sees the row
 * sees its items.
 */
import type { ChunkedItems } from "../../core/log/groups.js";
import type { GroupItemsWriter } from "../../core/ports/records.js";
import { chunksOf, isChunked, itemsPerRow } from "../../core/log/groups.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { LogGroupItemsRow } from "../resources/log-group-items.js";
import { breather } from "./breather.js";

/** Which log a group belongs to: part of its chunks' ids. */
export type GroupLog = "audit" | "events" | "tlp";

/** How a log stores a run of items (a group's, or one chunk's) and reads them back. */
export interface ItemsCodec<T> {
  encode(items: readonly T[]): unknown;
  decode(stored: unknown): T[];
}

const chunkId = (log: GroupLog, groupId: string, chunk: number): string => `${log}:${groupId}:${String(chunk).padStart(6, "0")}`;

/** The ids of a chunked group's chunk rows, in order (retention deletes them with their group). */
export const chunkIdsOf = (log: GroupLog, groupId: string, marker: ChunkedItems): string[] => Array.from({ length: marker.chunks }, (_, chunk) => chunkId(log, groupId, chunk));

export interface GroupItems {
  /** Stores a group's items; resolves to what its row's items column holds (the items, or the marker). */
  store<T>(log: GroupLog, organizationId: string, groupId: string, items: readonly T[], codec: ItemsCodec<T>): Promise<unknown>;
  /** Stores a group's items as they are made (StoredGroupItems); `store` is this with all of them at once. */
  writer<T>(log: GroupLog, organizationId: string, groupId: string, codec: ItemsCodec<T>): StoredGroupItems<T>;
  /** A group's items from what its row's items column holds, in order. */
  load<T>(log: GroupLog, organizationId: string, groupId: string, stored: unknown, codec: ItemsCodec<T>): Promise<T[]>;
  /** The item at `position` of a group, or undefined: only the chunk that holds it is read. */
  loadOne<T>(log: GroupLog, organizationId: string, groupId: string, stored: unknown, position: number, codec: ItemsCodec<T>): Promise<T | undefined>;
}

/** `giveWay`: the unit's, when it is a long one that gives short ones the thread (unit-state.ts). */
export function groupItems(chunks: DeclaredRepository<LogGroupItemsRow, object>, giveWay?: () => Promise<void> | undefined): GroupItems {
  return {
    async store(log, organizationId, groupId, items, codec) {
      const writer = new StoredGroupItems(chunks, log, organizationId, groupId, codec, giveWay);
      await writer.add(items);
      return writer.finish();
    },
    writer: (log, organizationId, groupId, codec) => new StoredGroupItems(chunks, log, organizationId, groupId, codec, giveWay),
    async load(log, organizationId, groupId, stored, codec) {
      if (!isChunked(stored)) return codec.decode(stored);
      // By the ids the marker implies, in id order (= chunk order). A chunk that is missing reads
      // as fewer items: the TLP chain's hash covers the list, so its verification names the row.
      const ids = chunkIdsOf(log, groupId, stored);
      const rows = await chunks.findMany(organizationId, ids);
      return rows.flatMap((row) => codec.decode(row.items));
    },
    async loadOne(log, organizationId, groupId, stored, position, codec) {
      if (!isChunked(stored)) return codec.decode(stored)[position];
      const chunk = Math.floor(position / itemsPerRow);
      if (chunk >= stored.chunks) return undefined;
      const row = await chunks.findById(organizationId, chunkId(log, groupId, chunk));
      return row ? codec.decode(row.items)[position % itemsPerRow] : undefined;
    },
  };
}

/**
 * A group's items written as they come (a bulk operation adds each page's as it saves it), so a
 * group of 100 000 records is never held whole: once more than `itemsPerRow` are in, every full
 * chunk goes to its chunk row at once and only the rest is kept (held whole, a bulk's event
 * payloads survived every young-generation collection to the end). What it writes, and `finish`
 * answers, is what `store` of the same items gives: items of at most `itemsPerRow` in the group's
 * own row, else chunk rows of `itemsPerRow` in order and the marker. `add` resolves once the
 * statements it sent have, one chunk insert at a time.
 */
export class StoredGroupItems<T> implements GroupItemsWriter<T> {
  private held: T[] = [];
  private written = 0;
  private chunk = 0;
  private finished = false;
  private readonly breathe: () => Promise<void> | undefined;

  constructor(
    private readonly chunks: DeclaredRepository<LogGroupItemsRow, object>,
    /** Which group the items are of: its log, organization and id. */
    readonly log: GroupLog,
    readonly organizationId: string,
    readonly groupId: string,
    private readonly codec: ItemsCodec<T>,
    giveWay?: () => Promise<void> | undefined,
  ) {
    this.breathe = breather({ giveWay });
  }

  /** Items added so far. */
  get count(): number {
    return this.written + this.held.length;
  }

  async add(items: readonly T[]): Promise<void> {
    if (this.finished) throw new Error("casekit: this group's items are already stored");
    for (const item of items) this.held.push(item);
    // Only past itemsPerRow is the group chunked at all; then every full chunk goes out.
    if (this.chunk === 0 && this.held.length <= itemsPerRow) return;
    await this.writeChunks(this.held.length - (this.held.length % itemsPerRow));
  }

  /** Writes what is held; resolves to what the group's row holds in its items column. */
  async finish(): Promise<unknown> {
    if (this.finished) throw new Error("casekit: this group's items are already stored");
    this.finished = true;
    if (this.chunk === 0) return this.codec.encode(this.held);
    await this.writeChunks(this.held.length);
    const marker: ChunkedItems = { chunks: this.chunk, count: this.written };
    return marker;
  }

  /** The first `upTo` held items, in chunk rows; each chunk is encoded while the one before it is inserted. */
  private async writeChunks(upTo: number): Promise<void> {
    const parts = chunksOf(this.held.slice(0, upTo));
    this.held = this.held.slice(upTo);
    let inserting: Promise<unknown> | undefined;
    for (const part of parts) {
      let encoded: unknown;
      try {
        encoded = this.codec.encode(part);
      } catch (error) {
        // The unit never ends with a statement of it still running (it would outlive the rollback).
        await inserting?.catch(() => undefined);
        throw error;
      }
      await inserting;
      await this.breathe();
      inserting = this.chunks.insert({ id: chunkId(this.log, this.groupId, this.chunk), organizationId: this.organizationId, items: encoded });
      this.chunk++;
      this.written += part.length;
    }
    await inserting;
  }
}

/** `read` of each row, one after the other: a unit's statements never overlap (PostgreSQL runs a unit on one connection). */
export async function eachInTurn<T, U>(rows: readonly T[], read: (row: T) => Promise<U>): Promise<U[]> {
  const out: U[] = [];
  for (const row of rows) out.push(await read(row));
  return out;
}
