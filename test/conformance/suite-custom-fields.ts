import { beforeEach, describe, expect, it } from "vitest";
import type { CaseType, CustomFieldDefinition, Organization } from "../../core/index.js";
import { alertRecord } from "./alert-record.js";
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
      customFields: ["impact"],
      lifecycle: null,
      archivedAt: null,
      createdAt: at,
      updatedAt: at,
      createdBy: null,
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

    it("finds a value many records hold (the probing form) exactly as a rare one, page by page", async () => {
      const storage = ctx.storage();
      const f = ctx.fixtures();
      // Pages of 40: from 1 000 holders (commonValueRows) the list probes the value index per record.
      const records = Array.from({ length: 1_600 }, (_, i) => f.caseRecord(org.id, { customFields: { impact: i % 3 === 0 ? "rare" : "common", tier: i % 2 === 0 ? "even" : "odd" }, tlp: i % 5 }));
      await storage.transaction(async (tx) => {
        for (const record of records) await tx.cases.insert(record);
      });
      const expected = (impact: string, tier?: string) =>
        records.filter((r) => r.customFields.impact === impact && (tier === undefined || r.customFields.tier === tier) && r.tlp <= 3).map((r) => r.id).sort().reverse();
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
    }, 60_000);
  });
}
