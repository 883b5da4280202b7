import { beforeEach, describe, expect, it } from "vitest";
import type { CaseType, CustomFieldDefinition, Organization } from "../../core/index.js";
import { alertRecord } from "./alert-record.js";
import { observableRecord } from "./suite-observables.js";
import { taskRecord } from "./task-record.js";
import type { SuiteContext } from "./suite-context.js";
import { expectConflict } from "./suite-context.js";

/** Custom field definitions, case types, and the value index behind `cf.<key>` filters. */
export function describeCustomFields(ctx: SuiteContext): void {
  describe("custom fields and case types", () => {
    let org: Organization;
    let other: Organization;
    beforeEach(async () => {
      ({ org } = await ctx.seedOrganization());
      ({ org: other } = await ctx.seedOrganization());
    });

    const at = "2026-02-01T10:00:00.000Z";
    const definition = (organizationId: string, key: string, overrides: Partial<CustomFieldDefinition> = {}): CustomFieldDefinition => ({
      id: ctx.fixtures().ids.next("cfd"),
      organizationId,
      key,
      label: key,
      description: null,
      scopes: ["case"],
      type: "multi_enum",
      options: [{ id: "a", label: "A", deprecated: false }],
      bounds: { max: 3 },
      required: { onCreate: false, onClose: true },
      defaultValue: ["a"],
      tlpFloor: 3,
      filterable: true,
      archivedAt: null,
      createdAt: at,
      updatedAt: at,
      createdBy: null,
      ...overrides,
    });
    const caseType = (organizationId: string, key: string): CaseType => ({
      id: ctx.fixtures().ids.next("ctype"),
      organizationId,
      key,
      label: key,
      description: null,
      defaultTlp: 3,
      defaultPap: null,
      defaultSeverity: 3,
      customFields: ["impact"],
      lifecycle: "fast",
      archivedAt: null,
      createdAt: at,
      updatedAt: at,
      createdBy: null,
    });

    it("the definitions version: a new value with every definitions write, in that organization only, its own writes seen inside a unit, back on rollback", async () => {
      const storage = ctx.storage();
      const version = (id: string) => storage.read((tx) => tx.organizations.definitionsVersion(id));
      expect(await version("org_nosuchorganization0000000")).toBeNull();
      const seen = new Set([await version(org.id)]);
      const otherBefore = await version(other.id);
      const moved = async (what: string) => {
        const now = await version(org.id);
        expect(seen.has(now), what).toBe(false);
        seen.add(now);
      };
      const field = definition(org.id, "impact");
      const type = caseType(org.id, "phishing");
      await storage.transaction((tx) => tx.customFields.insert(field));
      await moved("custom field inserted");
      await storage.transaction(async (tx) => void (await tx.customFields.update({ ...field, label: "Impact" })));
      await moved("custom field updated");
      await storage.transaction((tx) => tx.caseTypes.insert(type));
      await moved("case type inserted");
      await storage.transaction(async (tx) => void (await tx.caseTypes.update({ ...type, label: "Phishing" })));
      await moved("case type updated");
      await storage.transaction(async (tx) => void (await tx.caseTypes.delete(org.id, type.id)));
      await moved("case type deleted");
      const lifecycle = { id: ctx.fixtures().ids.next("lcy"), organizationId: org.id, entity: "task" as const, key: "default", version: 1, statuses: [{ key: "todo", label: "To do", category: "new" as const, final: false, color: null }], transitions: [], mapping: {}, createdAt: at, createdBy: null };
      await storage.transaction((tx) => tx.lifecycles.insert(lifecycle));
      await moved("lifecycle published");
      // Record writes and the counters leave it alone; a unit holding the counters answers with no change.
      const before = await version(org.id);
      await storage.transaction(async (tx) => {
        await tx.organizations.nextCaseNumber(org.id);
        expect(await tx.organizations.definitionsVersion(org.id)).toBe(before);
        // Its own definitions write is seen at once, though the row is held from before it.
        await tx.customFields.insert(definition(org.id, "score"));
        const own = await tx.organizations.definitionsVersion(org.id);
        expect(own).not.toBe(before);
        expect(await tx.organizations.definitionsVersion(org.id)).toBe(own);
      });
      await moved("custom field inserted in a unit that held the counters");
      const committed = await version(org.id);
      await expect(
        storage.transaction(async (tx) => {
          await tx.customFields.insert(definition(org.id, "dropped"));
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      expect(await version(org.id)).toBe(committed);
      expect(await version(other.id)).toBe(otherBefore);
    });

    it("stores definitions exactly, one key per organization, listAll oldest first and per tenant", async () => {
      const storage = ctx.storage();
      const first = definition(org.id, "impact");
      const second = definition(org.id, "score", { type: "integer", options: [], bounds: {}, defaultValue: null, tlpFloor: null, scopes: ["case", "alert"] });
      await storage.transaction(async (tx) => {
        await tx.customFields.insert(first);
        await tx.customFields.insert(second);
        await tx.customFields.insert(definition(other.id, "impact"));
      });
      expect(await storage.read((tx) => tx.customFields.findById(org.id, first.id))).toEqual(first);
      expect(await storage.read((tx) => tx.customFields.findByKey(org.id, "score"))).toEqual(second);
      expect(await storage.read((tx) => tx.customFields.listAll(org.id))).toEqual([first, second]);
      expect((await storage.read((tx) => tx.customFields.list(org.id, { scope: "alert" }, { limit: 10 }))).map((d) => d.key)).toEqual(["score"]);
      await expectConflict(storage.transaction((tx) => tx.customFields.insert(definition(org.id, "impact"))));
      const changed = { ...first, label: "Impact", archivedAt: at, key: "renamed", type: "enum" as const };
      await storage.transaction((tx) => tx.customFields.update(changed));
      // The key and the type are set once.
      expect(await storage.read((tx) => tx.customFields.findById(org.id, first.id))).toEqual({ ...changed, key: "impact", type: "multi_enum" });
    });

    it("stores case types, one key per organization, deletes them, and says whether any exists", async () => {
      const storage = ctx.storage();
      const type = caseType(org.id, "phishing");
      expect(await storage.read((tx) => tx.caseTypes.any(org.id))).toBe(false);
      await storage.transaction((tx) => tx.caseTypes.insert(type));
      expect(await storage.read((tx) => tx.caseTypes.findByKey(org.id, "phishing"))).toEqual(type);
      expect(await storage.read((tx) => tx.caseTypes.findByKey(other.id, "phishing"))).toBeNull();
      expect(await storage.read((tx) => tx.caseTypes.any(other.id))).toBe(false);
      await expectConflict(storage.transaction((tx) => tx.caseTypes.insert(caseType(org.id, "phishing"))));
      expect(await storage.transaction((tx) => tx.caseTypes.delete(other.id, type.id))).toBe(false);
      expect(await storage.transaction((tx) => tx.caseTypes.delete(org.id, type.id))).toBe(true);
      expect(await storage.read((tx) => tx.caseTypes.any(org.id))).toBe(false);
    });

    it("filters cases and alerts by custom field values, kept current by every insert and update, per tenant", async () => {
      const storage = ctx.storage();
      const f = ctx.fixtures();
      const odd = `it's 100%_"odd" | ☕`;
      const a = f.caseRecord(org.id, { customFields: { impact: "high", vectors: ["email", "web"], score: 7, urgent: true, note: "x".repeat(201) } });
      const b = f.caseRecord(org.id, { customFields: { impact: odd, vectors: ["web"] } });
      const foreign = f.caseRecord(other.id, { customFields: { impact: "high" } });
      const alert = alertRecord(f.ids.next("alert"), org.id, at, { customFields: { impact: "high" } });
      await storage.transaction(async (tx) => {
        for (const record of [a, b, foreign]) await tx.cases.insert(record);
        await tx.alerts.insert(alert);
      });
      const cases = (organizationId: string, customField: { key: string; value: string }[]) =>
        storage.read(async (tx) => (await tx.cases.list(organizationId, { maxTlp: 4, customField }, { limit: 10 })).map((c) => c.id));
      expect(await cases(org.id, [{ key: "impact", value: "high" }])).toEqual([a.id]);
      expect(await cases(org.id, [{ key: "impact", value: odd }])).toEqual([b.id]);
      expect(await cases(org.id, [{ key: "vectors", value: "web" }])).toEqual([b.id, a.id]);
      expect(await cases(org.id, [{ key: "vectors", value: "web" }, { key: "score", value: "7" }, { key: "urgent", value: "true" }])).toEqual([a.id]);
      // Text longer than 200 characters is not indexed.
      expect(await cases(org.id, [{ key: "note", value: "x".repeat(201) }])).toEqual([]);
      expect(await cases(other.id, [{ key: "impact", value: "high" }])).toEqual([foreign.id]);
      expect((await storage.read((tx) => tx.alerts.list(org.id, { maxTlp: 4, customField: [{ key: "impact", value: "high" }] }, { limit: 10 }))).map((x) => x.id)).toEqual([alert.id]);

      await storage.transaction(async (tx) => {
        await tx.cases.update({ ...a, customFields: { impact: "low" } });
        await tx.alerts.update({ ...alert, customFields: {} });
      });
      expect(await cases(org.id, [{ key: "impact", value: "high" }])).toEqual([]);
      expect(await cases(org.id, [{ key: "vectors", value: "web" }])).toEqual([b.id]);
      expect(await cases(org.id, [{ key: "impact", value: "low" }])).toEqual([a.id]);
      expect(await storage.read((tx) => tx.alerts.list(org.id, { maxTlp: 4, customField: [{ key: "impact", value: "high" }] }, { limit: 10 }))).toEqual([]);
    });

    it("filters tasks and observables by custom field values, kept current by insert, update and updateMany, per tenant and kind", async () => {
      const storage = ctx.storage();
      const f = ctx.fixtures();
      const parent = f.caseRecord(org.id);
      const foreignParent = f.caseRecord(other.id);
      const a = taskRecord(f.ids.next("task"), org.id, parent.id, at, { customFields: { effort: "s", tags: ["x", "y"], hours: 2.5 } });
      const b = taskRecord(f.ids.next("task"), org.id, parent.id, at, { customFields: { effort: "l", tags: ["y"] } });
      const foreignTask = taskRecord(f.ids.next("task"), other.id, foreignParent.id, at, { customFields: { effort: "s" } });
      const ip = observableRecord(f, org.id, { caseId: parent.id, customFields: { effort: "s", verdict: "malicious" } });
      const domain = observableRecord(f, org.id, { caseId: parent.id, dataType: "domain", data: "evil.example", customFields: { verdict: "benign" } });
      await storage.transaction(async (tx) => {
        for (const record of [parent, foreignParent]) await tx.cases.insert(record);
        for (const task of [a, b, foreignTask]) await tx.tasks.insert(task);
        for (const observable of [ip, domain]) await tx.observables.insert(observable);
      });
      expect(await storage.read((tx) => tx.tasks.findById(org.id, a.id))).toEqual(a);
      expect(await storage.read((tx) => tx.observables.findById(org.id, ip.id))).toEqual(ip);
      const tasks = (organizationId: string, customField: { key: string; value: string }[]) =>
        storage.read(async (tx) => (await tx.tasks.list(organizationId, { maxTlp: 4, customField }, { limit: 10 })).map((x) => x.id));
      const observables = (customField: { key: string; value: string }[]) =>
        storage.read(async (tx) => (await tx.observables.list(org.id, { maxTlp: 4, customField }, { limit: 10 })).map((x) => x.id));
      expect(await tasks(org.id, [{ key: "effort", value: "s" }])).toEqual([a.id]);
      expect(await tasks(org.id, [{ key: "tags", value: "y" }])).toEqual([b.id, a.id]);
      expect(await tasks(org.id, [{ key: "tags", value: "y" }, { key: "hours", value: "2.5" }])).toEqual([a.id]);
      expect(await tasks(other.id, [{ key: "effort", value: "s" }])).toEqual([foreignTask.id]);
      // The same key and value on an observable is the observable's alone.
      expect(await observables([{ key: "effort", value: "s" }])).toEqual([ip.id]);
      expect(await observables([{ key: "verdict", value: "benign" }])).toEqual([domain.id]);
      expect(await storage.read(async (tx) => (await tx.observables.list(org.id, { maxTlp: 4, caseId: [parent.id], customField: [{ key: "verdict", value: "malicious" }] }, { limit: 10 })).map((x) => x.id))).toEqual([ip.id]);

      await storage.transaction(async (tx) => {
        await tx.tasks.update({ ...a, customFields: { effort: "l" } });
        await tx.observables.update({ ...ip, customFields: { verdict: "benign" } });
      });
      expect(await tasks(org.id, [{ key: "effort", value: "s" }])).toEqual([]);
      expect(await tasks(org.id, [{ key: "effort", value: "l" }])).toEqual([b.id, a.id]);
      expect(await tasks(org.id, [{ key: "tags", value: "y" }])).toEqual([b.id]);
      expect(await observables([{ key: "verdict", value: "malicious" }])).toEqual([]);
      expect(await observables([{ key: "verdict", value: "benign" }])).toEqual([domain.id, ip.id]);

      // A page written at once (a bulk, a lifecycle remap): each task's rows follow its own values.
      await storage.transaction((tx) => tx.tasks.updateMany([{ ...a, customFields: { effort: "m" } }, { ...b, customFields: {} }]));
      expect(await tasks(org.id, [{ key: "effort", value: "l" }])).toEqual([]);
      expect(await tasks(org.id, [{ key: "effort", value: "m" }])).toEqual([a.id]);
      expect(await tasks(org.id, [{ key: "tags", value: "y" }])).toEqual([]);
      expect(await tasks(other.id, [{ key: "effort", value: "s" }])).toEqual([foreignTask.id]);
      // A soft-deleted record leaves the filtered list with every other one.
      await storage.transaction((tx) => tx.tasks.update({ ...a, customFields: { effort: "m" }, deletedAt: at, deletedBy: null }));
      expect(await tasks(org.id, [{ key: "effort", value: "m" }])).toEqual([]);
    });

    it("finds a value many records hold (the probing form) exactly as a rare one, and every mix of two and three, page by page", async () => {
      const storage = ctx.storage();
      const f = ctx.fixtures();
      // Pages of 40: from 1 000 holders (commonValueRows) the list probes the value index per record.
      const records = Array.from({ length: 1_600 }, (_, i) => f.caseRecord(org.id, { customFields: { impact: i % 3 === 0 ? "rare" : "common", tier: i % 2 === 0 ? "even" : "odd", band: i % 7 === 0 ? "seven" : "other" }, tlp: i % 5 }));
      await storage.transaction(async (tx) => {
        for (const record of records) await tx.cases.insert(record);
      });
      const expected = (impact: string, tier?: string, band?: string) =>
        records
          .filter((r) => r.customFields.impact === impact && (tier === undefined || r.customFields.tier === tier) && (band === undefined || r.customFields.band === band) && r.tlp <= 3)
          .map((r) => r.id)
          .sort()
          .reverse();
      const walk = async (customField: { key: string; value: string }[]) => {
        const seen: string[] = [];
        for (let beforeId: string | undefined; ; ) {
          const page = await storage.read((tx) => tx.cases.list(org.id, { maxTlp: 3, customField }, { limit: 40, beforeId }));
          seen.push(...page.map((c) => c.id));
          if (page.length < 40) return seen;
          beforeId = page.at(-1)!.id;
        }
      };
      expect(await walk([{ key: "impact", value: "common" }])).toEqual(expected("common"));
      expect(await walk([{ key: "impact", value: "rare" }])).toEqual(expected("rare"));
      expect(await walk([{ key: "impact", value: "common" }, { key: "tier", value: "odd" }])).toEqual(expected("common", "odd"));
      expect(await walk([{ key: "tier", value: "even" }, { key: "impact", value: "rare" }])).toEqual(expected("rare", "even"));
      // Two and three values, the rarest driving whatever their order; a value twice is one; a value nobody holds matches nothing.
      expect(await walk([{ key: "impact", value: "rare" }, { key: "band", value: "seven" }])).toEqual(expected("rare", undefined, "seven"));
      expect(await walk([{ key: "tier", value: "odd" }, { key: "band", value: "seven" }, { key: "impact", value: "rare" }])).toEqual(expected("rare", "odd", "seven"));
      expect(await walk([{ key: "impact", value: "rare" }, { key: "impact", value: "rare" }])).toEqual(expected("rare"));
      expect(await walk([{ key: "impact", value: "common" }, { key: "band", value: "none" }])).toEqual([]);
    }, 60_000);
  });
}
