import { describe, expect, it } from "vitest";
import { auditExportPageSize } from "../../core/audit/follow.js";
import type { AuditEvent } from "../../core/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

const validCase = { title: "Phishing wave", severity: 3 };

async function collect(pages: AsyncIterable<AuditEvent[]>): Promise<AuditEvent[][]> {
  const out: AuditEvent[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

/** A kit, an auditor (a user and a key with audit:read) and the auditor's principal. */
async function withAuditor(t: TestKit, keyOverrides: { tlpClearance?: number; expiresAt?: string } = {}) {
  const user = await addUser(t.kit, t.organizationId, { role: "admin" });
  const { secret, key } = await addKey(t.kit, user, { scopes: ["audit:read"], ...keyOverrides });
  return { user, key, principal: await t.kit.authenticateKey(secret) };
}

describe("audit export pages (core)", () => {
  it("yields the organization's events oldest first, one page at a time, each page at most the page size", async () => {
    const t = await makeTestKit();
    for (let i = 0; i < auditExportPageSize + 20; i++) await t.kit.cases.create(t.admin, { ...validCase, title: `Case ${i}` });
    const pages = await collect(t.kit.audit.exportPages(t.admin, {})());
    expect(pages.map((p) => p.length)).toEqual([auditExportPageSize, expect.any(Number)]);
    const seqs = pages.flat().map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    expect(seqs.at(-1)).toBe((await t.kit.storage.read((tx) => tx.audit.head(t.organizationId))).seq);
  });

  it("checks the query and the scope before the first page; filters; redacts for the reader", async () => {
    const t = await makeTestKit();
    const created = await t.kit.cases.create(t.admin, { ...validCase, tlp: 3 });
    await t.kit.cases.update(t.admin, created.id, { title: "Renamed" });
    const { principal: low } = await withAuditor(t, { tlpClearance: 1 });
    expect(() => t.kit.audit.exportPages(t.admin, { cursor: "5" })).toThrow(expect.objectContaining({ code: "validation_failed" }));
    expect(() => t.kit.audit.exportPages({ ...low, scopes: new Set() }, {})).toThrow(expect.objectContaining({ code: "missing_scope" }));
    const [page] = await collect(t.kit.audit.exportPages(low, { action: "case.updated" })());
    expect(page!.map((e) => e.changes)).toEqual([[{ path: "title", before: "[redacted]", after: "[redacted]" }]]);
    expect(await collect(t.kit.audit.exportPages(low, { outcome: "denied" })())).toEqual([]);
  });

  it("a key revoked between two pages stops the export before the next page", async () => {
    const t = await makeTestKit();
    for (let i = 0; i < auditExportPageSize + 5; i++) await t.kit.cases.create(t.admin, { ...validCase, title: `Case ${i}` });
    const { key, principal } = await withAuditor(t);
    const pages = t.kit.audit.exportPages(principal, {})()[Symbol.asyncIterator]();
    expect((await pages.next()).value).toHaveLength(auditExportPageSize);
    await t.kit.keys.changeStatus(t.admin, key.id, "revoke");
    await expect(pages.next()).rejects.toMatchObject({ code: "key_revoked" });
  });
});

describe("audit stream reads (core)", () => {
  it("head is the last position now; after(seq) reads the next events, ascending", async () => {
    const t = await makeTestKit();
    await t.kit.cases.create(t.admin, validCase);
    const { principal } = await withAuditor(t);
    const reads = t.kit.audit.stream(principal, {});
    const head = await reads.head();
    expect(await reads.after(head, 10)).toEqual([]);
    await t.kit.cases.create(t.admin, validCase);
    await t.kit.cases.create(t.admin, validCase);
    expect((await reads.after(head, 10)).map((e) => e.seq)).toEqual([head + 1, head + 2]);
    expect((await reads.after(head, 1)).map((e) => e.seq)).toEqual([head + 1]);
    expect(() => t.kit.audit.stream(principal, { lastEventId: "x" })).toThrow(expect.objectContaining({ code: "validation_failed" }));
  });

  it("re-checks access on every read: a lowered owner clearance narrows it, suspension, revocation, an inactive owner and expiry stop it", async () => {
    const t = await makeTestKit();
    const created = await t.kit.cases.create(t.admin, { ...validCase, tlp: 3 });
    await t.kit.cases.update(t.admin, created.id, { title: "Renamed" });
    const { user, key, principal } = await withAuditor(t, { expiresAt: "2026-03-02T12:00:00.000Z" });
    const reads = t.kit.audit.stream(principal, {});
    const updated = async () => (await reads.after(0, 100)).find((e) => e.action === "case.updated")!.changes;
    expect(await updated()).toEqual([{ path: "title", before: validCase.title, after: "Renamed" }]);
    await t.kit.users.update(t.admin, user.id, { tlpClearance: 1 });
    expect(await updated()).toEqual([{ path: "title", before: "[redacted]", after: "[redacted]" }]);
    await t.kit.keys.changeStatus(t.admin, key.id, "suspend");
    await expect(reads.after(0, 1)).rejects.toMatchObject({ code: "key_suspended" });
    await t.kit.keys.changeStatus(t.admin, key.id, "resume");
    expect(await reads.after(0, 1)).toHaveLength(1);
    t.clock.advance(25 * 3_600_000);
    await expect(reads.after(0, 1)).rejects.toMatchObject({ code: "key_expired" });
    await expect(reads.head()).rejects.toMatchObject({ code: "key_expired" });

    const other = await withAuditor(t);
    const otherReads = t.kit.audit.stream(other.principal, {});
    await t.kit.users.update(t.admin, other.user.id, { status: "disabled" });
    await expect(otherReads.after(0, 1)).rejects.toMatchObject({ code: "owner_inactive" });

    const third = await withAuditor(t);
    const thirdReads = t.kit.audit.stream(third.principal, {});
    await t.kit.keys.changeStatus(t.admin, third.key.id, "revoke");
    await expect(thirdReads.after(0, 1)).rejects.toMatchObject({ code: "key_revoked" });
  });
});
