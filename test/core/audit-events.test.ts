import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { declaredTables } from "../../adapters/resources/tables.js";
import { actorOf } from "../../core/audit/actor.js";
import { chainAuditRowsInTurns, hashAuditRow, verifyAuditRows } from "../../core/audit/chain.js";
import { diffChanges } from "../../core/audit/changes.js";
import { recordDenial } from "../../core/audit/record-event.js";
import { redactAuditEvent, redactedValue, redactForReader } from "../../core/audit/redact.js";
import { isSecretPath, maskedValue } from "../../core/audit/secrets.js";
import type { AuditEvent, NewAuditEvent } from "../../core/audit/types.js";
import { hiddenKeys } from "../../core/custom-fields/floor.js";
import type { CustomFieldDefinition } from "../../core/custom-fields/types.js";
import type { DefinitionsCache } from "../../core/definitions/cache.js";
import type { UnitOfWork } from "../../core/ports/storage.js";
import type { Principal } from "../../core/index.js";
import { allScopes } from "../../core/index.js";
import { makeTestKit } from "../helpers/kit.js";

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  organizationId: "org_1",
  userId: "user_1",
  keyId: null,
  authenticatedBy: "host",
  role: "admin",
  tier: null,
  scopes: new Set(allScopes),
  tlpClearance: 4,
  ...overrides,
});

describe("audit events: what a change records", () => {
  it("secrets are masked at write, for every stored resource type: exactly the columns that hold hashes, secrets, tokens or a webhook's auth", () => {
    const masked: string[] = [];
    for (const [table, resource] of Object.entries(declaredTables)) {
      const fields = (resource as { fields: readonly { key: string }[] }).fields;
      const before = Object.fromEntries(fields.map((f) => [f.key, `old-${f.key}`]));
      const after = Object.fromEntries(fields.map((f) => [f.key, `new-${f.key}`]));
      for (const change of diffChanges(before, after)) {
        const secret = change.before === maskedValue;
        expect(change.after === maskedValue, `${table}.${change.path}`).toBe(secret);
        if (secret) masked.push(`${table}.${change.path}`);
        else expect(change).toEqual({ path: change.path, before: `old-${change.path}`, after: `new-${change.path}` });
      }
    }
    expect(masked.sort()).toEqual(
      [
        "users.passwordHash",
        "apiKeys.hash",
        "sessions.tokenHash",
        "sessions.csrfHash",
        "webhooks.secret",
        "webhooks.previousSecret",
        "webhooks.authConfig",
        // The logs' own chain hashes are no record's fields, but named like secrets they would be masked too.
        "auditLog.prevHash",
        "auditLog.hash",
        "auditCheckpoints.hash",
        "tlpAuditLog.prevHash",
        "tlpAuditLog.hash",
      ].sort(),
    );
    // Nested: a webhook's auth configuration, whatever its keys; a secret cleared still shows it was.
    expect(diffChanges({ authConfig: { header: "X-Token", value: "s3cr3t" } }, { authConfig: { header: "X-Token", value: "n3w" } })).toEqual([{ path: "authConfig.value", before: maskedValue, after: maskedValue }]);
    expect(diffChanges({ secret: "sealed" }, { secret: null })).toEqual([{ path: "secret", before: maskedValue, after: null }]);
    expect(isSecretPath("secretStart")).toBe(false);
    expect(isSecretPath("previousSecretExpiresAt")).toBe(false);
  });

  it("changes are listed by dotted path: nested objects walked into, arrays and scalars whole, updatedAt left out, key order ignored", () => {
    const before = { title: "a", tags: [{ name: "x" }], customFields: { severity: 1, owner: { team: "red", on: true } }, updatedAt: "t1", same: { b: 1, a: 2 } };
    const after = { title: "b", tags: [{ name: "x" }, { name: "y" }], customFields: { owner: { team: "blue", on: true }, added: "new" }, updatedAt: "t2", same: { a: 2, b: 1 } };
    expect(diffChanges(before, after)).toEqual([
      { path: "title", before: "a", after: "b" },
      { path: "tags", before: [{ name: "x" }], after: [{ name: "x" }, { name: "y" }] },
      { path: "customFields.owner.team", before: "red", after: "blue" },
      { path: "customFields.added", before: null, after: "new" },
      { path: "customFields.severity", before: 1, after: null },
    ]);
  });

  it("the actor comes from the principal: a key acts on behalf of its owner; a session or host identity is the user; casekit's own work says so", () => {
    expect(actorOf(principal({ keyId: "key_1", authenticatedBy: "key" }))).toEqual({ type: "apiKey", id: "key_1", onBehalfOf: "user_1" });
    expect(actorOf(principal({ authenticatedBy: "session" }))).toEqual({ type: "user", id: "user_1" });
    expect(actorOf(principal())).toEqual({ type: "user", id: "user_1" });
    expect(actorOf(principal({ actorType: "system" }))).toEqual({ type: "system", id: "user_1" });
  });
});

describe("audit events: refusals", () => {
  it("recordDenial writes the refused attempt (outcome denied) in a unit of its own, kept though the refused unit rolled back", async () => {
    const t = await makeTestKit();
    const made = await t.kit.cases.create(t.admin, { title: "Kept", severity: 2 });
    const attempt = { action: "case.updated", target: { type: "case", id: made.id, caseId: made.id } };
    await expect(
      t.kit.storage.transaction(async (tx) => {
        await tx.cases.update({ ...made, title: "Never" });
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    await recordDenial(t.kit.deps, t.admin, attempt);
    const [denied] = (await t.kit.audit.list(t.admin, { outcome: "denied" })).data;
    expect(denied).toMatchObject({ ...attempt, outcome: "denied", actor: { type: "apiKey", id: t.admin.keyId, onBehalfOf: t.admin.userId }, changes: [] });
    expect((await t.kit.cases.get(t.admin, made.id)).title).toBe("Kept");
    expect(await t.kit.audit.verify(t.admin)).toMatchObject({ ok: true });
  });
});

describe("audit events: redaction at read time", () => {
  const event: AuditEvent = {
    id: "aud_1",
    organizationId: "org_1",
    seq: 1,
    at: "2026-01-01T00:00:00.000Z",
    actor: { type: "user", id: "user_1" },
    requestId: null,
    ip: null,
    userAgent: null,
    action: "case.updated",
    target: { type: "case", id: "case_1", caseId: "case_1" },
    outcome: "success",
    changes: [
      { path: "title", before: "Old", after: "New" },
      { path: "customFields.informant", before: null, after: "Deep Throat" },
      { path: "customFields.region.name", before: "EU", after: "US" },
    ],
    bulkRequestId: null,
    tlp: 3,
  };

  it("a record above the reader's clearance keeps its paths, not its values; a field above its floor likewise; nothing else changes", () => {
    expect(redactAuditEvent(event, 4, new Set())).toBe(event);
    expect(redactAuditEvent(event, 2, new Set()).changes).toEqual([
      { path: "title", before: redactedValue, after: redactedValue },
      { path: "customFields.informant", before: null, after: redactedValue },
      { path: "customFields.region.name", before: redactedValue, after: redactedValue },
    ]);
    expect(redactAuditEvent(event, 4, new Set(["informant", "region"])).changes).toEqual([
      { path: "title", before: "Old", after: "New" },
      { path: "customFields.informant", before: null, after: redactedValue },
      { path: "customFields.region.name", before: redactedValue, after: redactedValue },
    ]);
    expect(redactAuditEvent({ ...event, tlp: null }, 0, new Set()).changes[0]).toEqual({ path: "title", before: "Old", after: "New" });
  });

  it("a page is redacted as with the floors always read, and the floors are read only for a page that changes a custom field", async () => {
    const paths = ["title", "severity", "customFields.informant", "customFields.region.name", "customFieldsNote"];
    const change = fc.record({ path: fc.constantFrom(...paths), before: fc.option(fc.string(), { nil: null }), after: fc.option(fc.string(), { nil: null }) });
    const page = fc.array(fc.record({ id: fc.uuid(), tlp: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), changes: fc.array(change, { maxLength: 4 }) }), { maxLength: 6 });
    const floors = fc.array(fc.record({ key: fc.constantFrom("informant", "region", "other"), tlpFloor: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }) }), { maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(page, floors, fc.integer({ min: 0, max: 4 }), async (drawn, fields, clearance) => {
        const events: AuditEvent[] = drawn.map((d) => ({ ...event, ...d }));
        const definitions = fields as unknown as CustomFieldDefinition[];
        let reads = 0;
        const cache: DefinitionsCache = {
          async read<T>() {
            reads += 1;
            return definitions as T;
          },
          size: () => 0,
        };
        const shown = await redactForReader({ definitions: cache }, {} as UnitOfWork, "org_1", clearance, events);
        expect(shown).toStrictEqual(events.map((e) => redactAuditEvent(e, clearance, hiddenKeys(definitions, clearance))));
        expect(reads).toBe(events.some((e) => e.changes.some((c) => c.path.startsWith("customFields."))) ? 1 : 0);
      }),
      { numRuns: 300 },
    );
  });

  it("through the service: a reader cleared below the case's marking sees what changed, not the values", async () => {
    const t = await makeTestKit();
    const made = await t.kit.cases.create(t.admin, { title: "Red matter", severity: 2, tlp: 4 });
    await t.kit.cases.update(t.admin, made.id, { title: "Still red" });
    const amber = { ...t.admin, tlpClearance: 2 };
    const seen = await t.kit.audit.list(amber, { action: "case.updated" });
    expect(seen.data[0]!.changes).toEqual([{ path: "title", before: redactedValue, after: redactedValue }]);
    expect((await t.kit.audit.list(t.admin, { action: "case.updated" })).data[0]!.changes).toEqual([{ path: "title", before: "Red matter", after: "Still red" }]);
  });

  it("each event names the case its record lives in: the case itself, a task's, a comment on the case, and a comment on a task (its task's case)", async () => {
    const t = await makeTestKit();
    const made = await t.kit.cases.create(t.admin, { title: "Phishing", severity: 2, tlp: 2 });
    const task = await t.kit.tasks.create(t.admin, made.id, { title: "Pull the mail" });
    await t.kit.comments.create(t.admin, { kind: "case", id: made.id }, { body: "On the case." });
    await t.kit.comments.create(t.admin, { kind: "task", id: task.id }, { body: "On the task." });
    const trail = await t.kit.audit.listForCase(t.admin, made.id, {});
    expect(trail.data.map((event) => [event.action, event.target.type, event.target.caseId]).reverse()).toEqual([
      ["case.created", "case", made.id],
      ["task.created", "task", made.id],
      ["comment.created", "comment", made.id],
      ["comment.created", "comment", made.id],
    ]);
  });
});

describe("audit events: the chain", () => {
  const base = (id: string, items?: NewAuditEvent["items"]): NewAuditEvent => ({
    id,
    organizationId: "org_1",
    at: "2026-01-01T00:00:00.000Z",
    actor: { type: "apiKey", id: "key_1", onBehalfOf: "user_1" },
    requestId: "req_1",
    ip: null,
    userAgent: null,
    action: "task.updated",
    target: { type: "task", id: id },
    outcome: "success",
    changes: [{ path: "meta", before: { b: 1, a: 2 }, after: null }],
    bulkRequestId: null,
    tlp: 1,
    ...(items ? { items } : {}),
  });

  it("a group row reserves one position per record, its hash covers its items, and verify walks the spans", async () => {
    const items = [0, 1, 2].map((i) => ({ resourceId: `task_${i}`, caseId: "case_1", tlp: 1, changes: [{ path: "status", before: "a", after: "b" }] }));
    const rows = await chainAuditRowsInTurns({ seq: 10, hash: "h" }, [base("aud_1"), base("aud_2", items), base("aud_3")], () => undefined);
    expect(rows.map((r) => r.seq)).toEqual([11, 12, 15]);
    expect(verifyAuditRows(rows, { seq: 10, hash: "h" })).toEqual({ ok: true, checked: 3, head: { seq: 15, hash: rows[2]!.hash } });
    const altered = { ...rows[1]!, items: items.map((item, i) => (i === 2 ? { ...item, resourceId: "task_x" } : item)) };
    expect(verifyAuditRows([rows[0]!, altered, rows[2]!], { seq: 10, hash: "h" })).toMatchObject({ ok: false, firstBad: { id: "aud_2", seq: 12, reason: "hash" } });
    // Read back with an object's keys in another order (PostgreSQL's jsonb), a row hashes the same.
    const { hash, ...unhashed } = rows[0]!;
    expect(hashAuditRow({ ...unhashed, changes: [{ path: "meta", before: { a: 2, b: 1 }, after: null }] })).toBe(hash);
  });
});
