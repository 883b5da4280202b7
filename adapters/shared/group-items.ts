/**
 * Where a group's items go, for the three logs alike (core/log/groups.ts): in the group's own row
 * when they are at most `itemsPerRow`, else in chunk rows of `itemsPerRow` (log_group_items), one
 * statement each with the event loop given a turn between two, and the row holds the marker.
 * Chunks are written before their group's row, in the same unit, so a reader that sees the row
 * sees its items.
 */
import type { ChunkedItems } from "../../core/log/groups.js";
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
  /** A group's items from what its row's items column holds, in order. */
  load<T>(log: GroupLog, organizationId: string, groupId: string, stored: unknown, codec: ItemsCodec<T>): Promise<T[]>;
  /** The item at `position` of a group, or undefined: only the chunk that holds it is read. */
  loadOne<T>(log: GroupLog, organizationId: string, groupId: string, stored: unknown, position: number, codec: ItemsCodec<T>): Promise<T | undefined>;
}

export function groupItems(chunks: DeclaredRepository<LogGroupItemsRow, object>): GroupItems {
  return {
    async store(log, organizationId, groupId, items, codec) {
      if (items.length <= itemsPerRow) return codec.encode(items);
      const breathe = breather();
      const parts = chunksOf(items);
      // Each chunk is encoded while the one before it is being inserted (off the thread on SQLite's
      // long units and PostgreSQL); one insert at a time, never two statements of a unit at once.
      let inserting: Promise<unknown> | undefined;
      for (let chunk = 0; chunk < parts.length; chunk++) {
        let encoded: unknown;
        try {
          encoded = codec.encode(parts[chunk]!);
        } catch (error) {
          // The unit never ends with a statement of it still running (it would outlive the rollback).
          await inserting?.catch(() => undefined);
          throw error;
        }
        await inserting;
        await breathe();
        inserting = chunks.insert({ id: chunkId(log, groupId, chunk), organizationId, items: encoded });
      }
      await inserting;
      const marker: ChunkedItems = { chunks: parts.length, count: items.length };
      return marker;
    },
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

/** `read` of each row, one after the other: a unit's statements never overlap (PostgreSQL runs a unit on one connection). */
export async function eachInTurn<T, U>(rows: readonly T[], read: (row: T) => Promise<U>): Promise<U[]> {
  const out: U[] = [];
  for (const row of rows) out.push(await read(row));
  return out;
}
