import { invalidField } from "./errors.js";

/**
 * Cursors are opaque to clients: base64url of the last id of a page. Ids sort by creation, so a
 * cursor is a keyset position and a deep page costs what the first one does.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[a-z]+_[0-9a-z]{26}$/.test(id)) throw invalidField("cursor", "is not a cursor this API issued");
  return id;
}

/** Turns `limit + 1` fetched rows into a page and its next cursor. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): { data: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { data: rows, nextCursor: null };
  const data = rows.slice(0, limit);
  return { data, nextCursor: encodeCursor(data[data.length - 1]!.id) };
}
