import { invalidField } from "./errors.js";

/**
 * A cursor is the last id of a page: ids sort by creation, so it is a keyset position and a deep
 * page costs what the first one does. Clients treat it as opaque; its shape (`cursorPattern`) is
 * what the list queries check and the document declares, so any cursor of that shape is a
 * position (one past every record simply gives an empty page). A log's entry read from a group
 * row (core/log/groups.ts) has the group's id, a dot and its position: a page may end there.
 */
export const cursorPattern = /^[a-z]+_[0-9a-z]{26}(\.[0-9]{1,9})?$/;

export function encodeCursor(lastId: string): string {
  return lastId;
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  if (!cursorPattern.test(cursor)) throw invalidField("cursor", "is not a cursor this API issued");
  return cursor;
}

/** Turns `limit + 1` fetched rows into a page and its next cursor. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): { data: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { data: rows, nextCursor: null };
  const data = rows.slice(0, limit);
  return { data, nextCursor: encodeCursor(data[data.length - 1]!.id) };
}
