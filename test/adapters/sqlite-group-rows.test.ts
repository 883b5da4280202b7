// A large group's items live out of its row on SQLite (core/log/groups.ts): the group rows stay a
// few dozen bytes, so the dispatcher's claim (an UPDATE, which SQLite does by rewriting the whole
// row) never rewrites a bulk's items, and each statement writes one chunk of bounded size.
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import { itemsPerRow } from "../../core/log/groups.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createFixtures } from "../conformance/fixtures.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";

const opened: { storage: Storage; db: Database.Database }[] = [];
afterEach(async () => {
  for (const { storage, db } of opened.splice(0)) {
    await storage.close();
    db.close();
  }
});

describe("SQLite: a large group's rows", () => {
  it("hold a marker, not the items; the chunks hold at most itemsPerRow items each; a claim updates the small row and reads them all", async () => {
    const db = await migratedMemoryDatabase();
    const storage = createSqliteStorage({ database: db });
    opened.push({ storage, db });
    const f = createFixtures();
    const org = f.organization();
    const count = 5 * itemsPerRow + 1;
    const audit = f.auditEntry(org.id, { action: "alert.assigned", target: { type: "alert", id: "bulk_1" }, bulkRequestId: "bulk_1" });
    const auditItems = Array.from({ length: count }, (_, i) => ({ resourceId: `alert_${i}`, changes: [{ path: "assigneeId", before: null, after: "user_x" }] }));
    const event = f.event(org.id, { name: "alert.assigned", resourceType: "alert", resourceId: "bulk_1", payload: {}, tlp: null, bulkRequestId: "bulk_1" });
    const eventItems = Array.from({ length: count }, (_, i) => ({ resourceId: `alert_${i}`, tlp: 1, payload: { id: `alert_${i}`, title: `Alert ${i}`, assigneeId: "user_x" } }));
    await storage.transaction(async (tx) => {
      await tx.organizations.insert(org);
      // An active subscription: the event waits for the dispatcher's claim.
      await tx.webhooks.insert(f.webhook(org.id));
      await tx.audit.append({ ...audit, items: auditItems });
      await tx.events.append({ ...event, items: eventItems });
    });

    const marker = { chunks: 6, count };
    expect(JSON.parse((db.prepare("SELECT items FROM audit_log WHERE id = ?").get(audit.id) as { items: string }).items)).toEqual(marker);
    expect(JSON.parse((db.prepare("SELECT items FROM events WHERE id = ?").get(event.id) as { items: string }).items)).toEqual(marker);
    const chunks = db.prepare("SELECT id, items FROM log_group_items ORDER BY id").all() as { id: string; items: string }[];
    expect(chunks.map((c) => c.id)).toEqual([
      ...Array.from({ length: 6 }, (_, k) => `audit:${audit.id}:00000${k}`),
      ...Array.from({ length: 6 }, (_, k) => `events:${event.id}:00000${k}`),
    ]);
    // By column: the audit items' shared changes are written once per chunk, only the ids per record.
    const auditChunk = JSON.parse(chunks[0]!.items) as { compact: number; count: number; columns: unknown[] };
    expect(auditChunk).toMatchObject({ compact: 2, count: itemsPerRow });
    expect(chunks[0]!.items.length).toBeLessThan(JSON.stringify(auditItems.slice(0, itemsPerRow)).length / 2);

    const claimed = await storage.transaction((tx) => tx.deliveries.claimEvents(10, f.at(), async () => true));
    expect(claimed).toHaveLength(count);
    expect(claimed[count - 1]).toStrictEqual({ ...event, id: `${event.id}.${count - 1}`, resourceId: `alert_${count - 1}`, tlp: 1, payload: eventItems[count - 1]!.payload });
    const row = db.prepare("SELECT items, dispatched_at FROM events WHERE id = ?").get(event.id) as { items: string; dispatched_at: string | null };
    expect(row.dispatched_at).not.toBeNull();
    expect(JSON.parse(row.items)).toEqual(marker);
  });

  it("a group of at most itemsPerRow items stays in its row, by column, with no chunk rows", async () => {
    const db = await migratedMemoryDatabase();
    const storage = createSqliteStorage({ database: db });
    opened.push({ storage, db });
    const f = createFixtures();
    const org = f.organization();
    const audit = f.auditEntry(org.id, { action: "task.updated", target: { type: "task", id: "bulk_2" }, bulkRequestId: "bulk_2" });
    const items = Array.from({ length: itemsPerRow }, (_, i) => ({ resourceId: `task_${i}`, changes: [{ path: "status", before: "waiting", after: "done" }] }));
    await storage.transaction(async (tx) => {
      await tx.organizations.insert(org);
      await tx.audit.append({ ...audit, items });
    });
    const stored = JSON.parse((db.prepare("SELECT items FROM audit_log WHERE id = ?").get(audit.id) as { items: string }).items) as { compact: number; count: number };
    expect(stored).toMatchObject({ compact: 2, count: itemsPerRow });
    expect(db.prepare("SELECT count(*) AS n FROM log_group_items").get()).toEqual({ n: 0 });
    expect(await storage.read((tx) => tx.audit.list(org.id, { limit: 1 }))).toStrictEqual([{ ...audit, id: `${audit.id}.${itemsPerRow - 1}`, seq: itemsPerRow, target: { type: "task", id: `task_${itemsPerRow - 1}` }, changes: items[0]!.changes }]);
  });
});
