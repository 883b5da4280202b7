/**
 * A bulk operation and a list view are stored as ONE audit row, ONE event row and ONE TLP audit row
 * listing their records (group entries, core/log/groups.ts), and read back per record: the audit
 * trail, the outbox and the TLP audit log API show one entry per record, pages may end inside a
 * group, each entry is kept or left out by the reader's clearance on its own, and the chain (whose
 * hash covers the id list) verifies.
 */
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, Principal, TlpAuditEntry } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { splitItemId } from "../../core/log/groups.js";
import { hashTlpEntry, verifyTlpChain } from "../../core/tlp/chain.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret, principalFor } from "../helpers/kit.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";

describe("bulk operations and list views recorded once", () => {
  let db: Database.Database;
  let kit: CaseKit;
  let admin: Principal;
  let organizationId: string;
  const rows = (table: string) => Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
  const counts = () => ({ audit: rows("audit_log"), events: rows("events"), tlp: rows("tlp_audit_log") });

  beforeEach(async () => {
    db = new Database((await migratedMemoryDatabase()).serialize());
    kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage: createSqliteStorage({ database: db }), clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret } });
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    admin = await kit.authenticateKey(init.apiKey);
    organizationId = init.organization.id;
  });

  /** A case with `n` tasks marked by `tlpOf(i)`. */
  async function tasks(n: number, tlpOf: (i: number) => number) {
    const parent = await kit.cases.create(admin, { title: "parent", severity: 2, tlp: 1 });
    const made = [];
    for (let i = 0; i < n; i++) made.push(await kit.tasks.create(admin, parent.id, { title: `task ${i}`, tlp: tlpOf(i) }));
    return made;
  }

  it("a bulk's audit row names the case its records share, and none when they live in two", async () => {
    const one = await tasks(3, () => 1);
    const other = await tasks(2, () => 1);
    const groupCase = (bulkRequestId: string) => (db.prepare("SELECT case_id FROM audit_log WHERE bulk_request_id = ? AND items IS NOT NULL").all(bulkRequestId) as { case_id: string | null }[]).map((row) => row.case_id);
    const shared = await kit.tasks.bulkUpdate(admin, { ids: one.map((t) => t.id), fields: { mandatory: true } });
    expect(groupCase(shared.bulkRequestId)).toEqual([one[0]!.caseId]);
    // The first two records share a case; the third lives in another.
    const spread = await kit.tasks.bulkUpdate(admin, { ids: [one[0]!.id, one[1]!.id, other[0]!.id], fields: { mandatory: false } });
    expect(groupCase(spread.bulkRequestId)).toEqual([null]);
  });

  /** Every entry of the TLP audit log API as `reader` walks it, `size` per page. */
  async function walkTlpLog(reader: Principal, size: number, query: Record<string, unknown> = {}): Promise<TlpAuditEntry[]> {
    const seen: TlpAuditEntry[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await kit.tlp.auditLogs(reader, { ...query, limit: String(size), ...(cursor ? { cursor } : {}) });
      seen.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return seen;
  }

  it("a bulk update writes one row in each log, and every reader sees one entry per record", async () => {
    const made = await tasks(12, (i) => (i % 3 === 0 ? 3 : 1));
    const before = counts();
    const result = await kit.tasks.bulkUpdate(admin, { ids: made.map((t) => t.id), fields: { mandatory: true } });
    expect(result.updated).toBe(12);
    expect(counts()).toEqual({ audit: before.audit + 1, events: before.events + 1, tlp: before.tlp + 1 });

    const audit = (await kit.storage.read((tx) => tx.audit.list(organizationId, { limit: 100 }))).filter((e) => e.bulkRequestId === result.bulkRequestId);
    expect(audit.map((e) => e.target.id).sort()).toEqual(made.map((t) => t.id).sort());
    expect(audit.every((e) => e.action === "task.updated" && JSON.stringify(e.changes) === JSON.stringify([{ path: "mandatory", before: false, after: true }]))).toBe(true);
    const events = (await kit.storage.read((tx) => tx.events.list(organizationId, { limit: 100 }))).filter((e) => e.bulkRequestId === result.bulkRequestId);
    expect(events.map((e) => e.resourceId).sort()).toEqual(made.map((t) => t.id).sort());
    for (const event of events) {
      expect(event.payload).toMatchObject({ id: event.resourceId, mandatory: true });
      expect(await kit.storage.read((tx) => tx.events.findById(organizationId, event.id))).toEqual(event);
    }

    // The TLP audit log: one entry per AMBER+STRICT task (as before), walked in pages that end inside the group.
    const amberStrict = made.filter((t) => t.tlp >= 3).map((t) => t.id);
    for (const size of [1, 2, 3, 50]) {
      // The creations are single entries of their own; the bulk's are the group's, newest first.
      const logged = await walkTlpLog(admin, size, { resourceType: "task", action: "edit" });
      expect(logged.filter((e) => splitItemId(e.id)).map((e) => e.resourceId)).toEqual([...amberStrict].reverse());
      expect(logged.filter((e) => !splitItemId(e.id))).toHaveLength(made.length);
    }
    const one = await kit.tlp.auditLogs(admin, { resourceId: amberStrict[1] });
    expect(one.data.map((e) => [e.resourceId, e.action, e.tlpBefore, e.tlpAfter, e.outcome])).toContainEqual([amberStrict[1], "edit", 3, 3, "allowed"]);
    expect(splitItemId(one.data[0]!.id)).toBeDefined();
    expect(await kit.tlp.verify(admin)).toEqual({ ok: true, checked: rows("tlp_audit_log") });
  });

  it("each expanded entry is left out or kept by the reader's clearance on its own", async () => {
    const made = await tasks(6, (i) => [0, 1, 2, 3, 4, 4][i]!);
    const lowered = made.map((t) => t.id);
    // Lowering every marking to CLEAR: each task's entry names its own marking before.
    await kit.tasks.bulkUpdate(admin, { ids: lowered, fields: { tlp: 0 } });
    const changes = (clearance: number) => walkTlpLog(principalFor(admin, { tlpClearance: clearance }), 2, { action: "change" });
    expect((await changes(4)).map((e) => e.tlpBefore).sort()).toEqual([1, 2, 3, 4, 4]);
    expect((await changes(2)).map((e) => e.tlpBefore).sort()).toEqual([1, 2]);
    expect((await changes(0)).map((e) => e.tlpBefore)).toEqual([]);
  });

  it("a list view of RED records is one TLP audit row, read as one view entry per record", async () => {
    for (let i = 0; i < 5; i++) await kit.cases.create(admin, { title: `red ${i}`, severity: 2, tlp: 4 });
    const before = rows("tlp_audit_log");
    const page = await kit.cases.list(admin, { limit: "50" });
    expect(rows("tlp_audit_log")).toBe(before + 1);
    const views = await walkTlpLog(admin, 2, { action: "view" });
    expect(views.map((e) => e.resourceId).sort()).toEqual(page.data.map((c) => c.id).sort());
    expect(await kit.tlp.verify(admin)).toMatchObject({ ok: true });
  });

  it("a selectAll over 2 500 AMBER+STRICT tasks (its log rows' items stored a chunk at a time) verifies and reads one entry per record", async () => {
    const made = await tasks(2500, () => 3);
    const result = await kit.tasks.bulkUpdate(admin, { options: { selectAll: true, filters: { caseId: [made[0]!.caseId] } }, fields: { mandatory: true } });
    expect(result).toMatchObject({ matched: 2500, updated: 2500, skipped: [] });
    const chain = await kit.storage.read((tx) => tx.tlpAudit.chain(organizationId, 0, 5000));
    const group = chain.find((e) => e.items !== undefined)!;
    expect(group.items!.map((item) => item.resourceId).sort()).toEqual(made.map((t) => t.id).sort());
    expect(await kit.tlp.verify(admin)).toMatchObject({ ok: true });
    const edits = (await walkTlpLog(admin, 500, { action: "edit" })).filter((e) => e.id.startsWith(`${group.id}.`));
    expect(edits.map((e) => e.resourceId).sort()).toEqual(made.map((t) => t.id).sort());
  });

  it("the group's hash covers its id list: a changed, removed or reordered item breaks verification", async () => {
    const made = await tasks(3, () => 3);
    await kit.tasks.bulkUpdate(admin, { ids: made.map((t) => t.id), fields: { mandatory: true } });
    const chain = await kit.storage.read((tx) => tx.tlpAudit.chain(organizationId, 0, 1000));
    const group = chain.find((e) => e.items !== undefined)!;
    expect(group.items).toHaveLength(3);
    expect(hashTlpEntry({ ...group, hash: undefined } as never)).toBe(group.hash);
    const at = chain.indexOf(group);
    const forged = [
      { ...group, items: group.items!.map((item, i) => (i === 1 ? { ...item, resourceId: "task_forged" } : item)) },
      { ...group, items: group.items!.slice(1) },
      { ...group, items: [...group.items!].reverse() },
      { ...group, items: group.items!.map((item) => ({ ...item, tlpBefore: 0 })) },
    ];
    for (const bad of forged) {
      expect(verifyTlpChain([...chain.slice(0, at), bad, ...chain.slice(at + 1)])).toMatchObject({ ok: false, firstBad: { id: group.id, reason: "hash" } });
    }
  });
});
