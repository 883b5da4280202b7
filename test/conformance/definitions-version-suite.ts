/**
 * The definitions cache's one promise, on a real database shared by several hosts: a definitions
 * change (lifecycle, custom field, case type, configuration import, or an operator's hand) made
 * through one host is what the very next unit of work on any other host uses.
 *
 * - The triggers: an insert, a delete and a write of every column of lifecycles, custom_fields
 *   and case_types gives the organization's definitions version a new value (derived from the
 *   declarations, so a table's column added later is covered); record writes and the other
 *   organization leave it alone.
 * - The matrix: after each change made on host A, what host B (whose cache holds the definitions)
 *   does with a create, an update, a transition, the custom field schema and the lifecycle equals
 *   what host C, which caches nothing, does: the oracle is the database itself.
 * - A unit that wrote definitions sees its own writes; when it rolls back, the values it cached
 *   are never used, even once a later write commits (the version is a drawn value, not a count).
 *
 * Run by test/adapters/definitions-version.test.ts (SQLite: three storages on one file) and
 * test/conformance/postgres-definitions-version.test.ts (three pools on one schema).
 */
import { describe, expect, it } from "vitest";
import { caseTypeResource } from "../../adapters/resources/case-types.js";
import { customFieldResource } from "../../adapters/resources/custom-fields.js";
import { lifecycleResource } from "../../adapters/resources/lifecycles.js";
import type { Resource } from "../../adapters/declare/resource.js";
import type { CaseKit, Principal } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import { definitionsOf } from "../../core/custom-fields/definitions.js";
import { lifecycleOf } from "../../core/lifecycles/current.js";

export interface DefinitionsHarness {
  /** Kits over one database (one storage each, as separate hosts), migrated; host index 2 caches nothing. */
  hosts(): Promise<CaseKit[]>;
  /** One statement outside casekit (an operator's hand); rows for a SELECT. */
  raw(sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  /** The dialect's n-th parameter placeholder. */
  param(n: number): string;
}

interface World {
  a: CaseKit;
  admin: Principal;
  organizationId: string;
  caseId: string;
}

/** What a host does for one principal now: each probe's outcome, or the refusal's code. */
async function probes(kit: CaseKit, w: World, h: DefinitionsHarness) {
  const outcome = async <T>(run: () => Promise<T>, shape: (value: T) => unknown) => {
    try {
      return shape(await run());
    } catch (error) {
      if (isCaseKitError(error)) return { refused: error.code, errors: error.errors };
      throw error;
    }
  };
  const caseShape = (c: { statusValue: string; typeValue: string | null; tlp: number; pap: number; customFields: Record<string, unknown> }) => ({
    statusValue: c.statusValue,
    typeValue: c.typeValue,
    tlp: c.tlp,
    pap: c.pap,
    customFields: c.customFields,
  });
  return {
    plainCreate: await outcome(() => kit.cases.create(w.admin, { title: "probe", severity: 2 }), caseShape),
    typedCreate: await outcome(() => kit.cases.create(w.admin, { title: "probe", severity: 2, typeValue: "phishing", customFields: { impact: "high" } }), caseShape),
    update: await outcome(() => kit.cases.update(w.admin, w.caseId, { customFields: { impact: "low" } }), caseShape),
    transitions: await outcome(() => kit.transitions.list(w.admin, "case", w.caseId), (t) => t),
    schema: await outcome(() => kit.customFields.schema(w.admin, { scope: "case" }), (s) => s),
    lifecycle: await outcome(() => kit.lifecycles.get(w.admin, "case"), (l) => l),
    // The definitions as the unit reads them, through the cache.
    fields: await kit.storage.read(async (tx) => (await definitionsOf(kit.deps, tx, w.organizationId)).map((d) => `${d.key}:${d.label}`)),
    raw: (await h.raw(`SELECT count(*) AS n FROM custom_fields WHERE organization_id = ${h.param(1)}`, [w.organizationId]))[0]!.n,
  };
}

const triageLifecycle = {
  statuses: [
    { key: "triage", label: "Triage", category: "new", final: false },
    { key: "in_progress", label: "In progress", category: "in_progress", final: false },
    { key: "closed", label: "Closed", category: "closed", final: true },
  ],
  transitions: [
    { from: ["triage"], to: "in_progress" },
    { from: ["triage", "in_progress"], to: "closed" },
  ],
  mapping: { new: "triage", on_hold: "in_progress", resolved: "closed" },
};

/** Every kind of definitions change, each one changing what a probe sees. */
const steps: { name: string; act: (w: World, h: DefinitionsHarness) => Promise<unknown> }[] = [
  { name: "custom field created", act: (w) => w.a.customFields.create(w.admin, { key: "impact", label: "Impact", scopes: ["case"], type: "enum", options: [{ id: "low", label: "Low" }, { id: "high", label: "High" }] }) },
  { name: "custom field required on create", act: async (w) => w.a.customFields.update(w.admin, await fieldId(w, "impact"), { required: { onCreate: true, onClose: false } }) },
  { name: "custom field relabelled", act: async (w) => w.a.customFields.update(w.admin, await fieldId(w, "impact"), { label: "Business impact", required: { onCreate: false, onClose: false } }) },
  { name: "case type created", act: (w) => w.a.caseTypes.create(w.admin, { key: "phishing", label: "Phishing", defaultTlp: 3, customFields: ["impact"] }) },
  { name: "case type's default TLP changed", act: async (w) => w.a.caseTypes.update(w.admin, await typeId(w, "phishing"), { defaultTlp: 1 }) },
  { name: "case type archived", act: async (w) => w.a.caseTypes.update(w.admin, await typeId(w, "phishing"), { archived: true }) },
  { name: "case type restored", act: async (w) => w.a.caseTypes.update(w.admin, await typeId(w, "phishing"), { archived: false }) },
  { name: "case lifecycle published", act: (w) => w.a.lifecycles.publish(w.admin, "case", triageLifecycle) },
  {
    name: "configuration imported",
    act: async (w) => {
      const current = await w.a.configuration.export(w.admin);
      return w.a.configuration.import(w.admin, { ...current, customFields: current.customFields.map((f) => ({ ...f, label: "Imported impact" })), lifecycles: { ...current.lifecycles, case: { ...current.lifecycles.case, mapping: {} } } });
    },
  },
  { name: "custom field archived", act: async (w) => w.a.customFields.update(w.admin, await fieldId(w, "impact"), { archived: true }) },
  {
    name: "an operator's hand-made UPDATE",
    act: (w, h) => h.raw(`UPDATE custom_fields SET label = ${h.param(1)}, archived_at = NULL WHERE organization_id = ${h.param(2)}`, ["By hand", w.organizationId]),
  },
  // Cases of the type exist (the service refuses to delete it): an operator's hand does.
  { name: "case type deleted by hand", act: (w, h) => h.raw(`DELETE FROM case_types WHERE organization_id = ${h.param(1)}`, [w.organizationId]) },
];

async function fieldId(w: World, key: string): Promise<string> {
  return (await w.a.customFields.list(w.admin, {})).data.find((d) => d.key === key)!.id;
}
async function typeId(w: World, key: string): Promise<string> {
  return (await w.a.caseTypes.list(w.admin, {})).data.find((t) => t.key === key)!.id;
}

export function describeDefinitionsVersion(label: string, harness: () => Promise<DefinitionsHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip === true)(`definitions version and cache (${label})`, () => {
    async function world(): Promise<{ h: DefinitionsHarness; kits: CaseKit[]; w: World }> {
      const h = await harness();
      const kits = await h.hosts();
      const a = kits[0]!;
      const init = await a.setup.initOrganization({ organizationName: `Definitions ${Math.random()}`, email: `admin-${Math.random().toString(36).slice(2)}@definitions.test` });
      const admin = await a.authenticateKey(init.apiKey);
      const held = await a.cases.create(admin, { title: "held", severity: 2, tlp: 2 });
      return { h, kits, w: { a, admin, organizationId: init.organization.id, caseId: held.id } };
    }

    it("moves on an insert, a delete and a write of every column of lifecycles, custom fields and case types, in that organization only", async () => {
      const { h, w } = await world();
      const other = await w.a.setup.initOrganization({ organizationName: `Other ${Math.random()}`, email: `other-${Math.random().toString(36).slice(2)}@definitions.test` });
      const version = async (id: string) => String((await h.raw(`SELECT definitions_version FROM organizations WHERE id = ${h.param(1)}`, [id]))[0]!.definitions_version);
      const otherBefore = await version(other.organization.id);
      const seen = new Set([await version(w.organizationId)]);
      const moved = async (what: string) => {
        const now = await version(w.organizationId);
        expect(seen.has(now), what).toBe(false);
        seen.add(now);
      };
      await w.a.customFields.create(w.admin, { key: "impact", label: "Impact", scopes: ["case"], type: "text" });
      await moved("custom field insert");
      await w.a.caseTypes.create(w.admin, { key: "phishing", label: "Phishing" });
      await moved("case type insert");
      await w.a.lifecycles.publish(w.admin, "task", { statuses: [{ key: "todo", label: "To do", category: "new", final: false }], transitions: [], mapping: { waiting: "todo", in_progress: "todo", completed: "todo", cancelled: "todo" } });
      await moved("lifecycle insert");
      const rows: Resource[] = [customFieldResource, caseTypeResource, lifecycleResource];
      for (const resource of rows) {
        for (const field of resource.tableFields) {
          await h.raw(`UPDATE ${resource.table} SET ${field.name} = ${field.name} WHERE organization_id = ${h.param(1)}`, [w.organizationId]);
          await moved(`${resource.table}.${field.name}`);
        }
      }
      // Record writes leave it alone.
      const before = await version(w.organizationId);
      const created = await w.a.cases.create(w.admin, { title: "record", severity: 2, tlp: 2 });
      await w.a.cases.update(w.admin, created.id, { title: "record, changed" });
      await w.a.organizations.updatePolicy(w.admin, { allowCaseSharing: true });
      expect(await version(w.organizationId)).toBe(before);
      for (const resource of rows) {
        await h.raw(`DELETE FROM ${resource.table} WHERE organization_id = ${h.param(1)}`, [w.organizationId]);
        await moved(`${resource.table} delete`);
      }
      expect(await version(other.organization.id)).toBe(otherBefore);
    });

    it("after each change made on one host, the next unit on another host does what a host with no cache does", async () => {
      const { h, kits, w } = await world();
      const [, b, c] = kits as [CaseKit, CaseKit, CaseKit];
      expect(await probes(b, w, h)).toEqual(await probes(c, w, h));
      expect(b.deps.definitions.size()).toBe(1);
      let previous = await probes(c, w, h);
      for (const step of steps) {
        await step.act(w, h);
        const onB = await probes(b, w, h);
        expect(onB, step.name).toEqual(await probes(c, w, h));
        // Each step changes what a host sees: a cache that kept the old definitions would fail above.
        expect(onB, `${step.name} changes something`).not.toEqual(previous);
        previous = onB;
      }
      expect(c.deps.definitions.size()).toBe(0);
    });

    it("a unit sees the definitions it wrote; rolled back, what it read is never used, even after a later write commits", async () => {
      const { kits, w } = await world();
      const b = kits[1]!;
      const keys = (kit: CaseKit) => kit.storage.read(async (tx) => (await definitionsOf(kit.deps, tx, w.organizationId)).map((d) => d.key));
      expect(await keys(b)).toEqual([]);
      const base = { organizationId: w.organizationId, description: null, scopes: ["case" as const], type: "text" as const, options: [], bounds: {}, required: { onCreate: false, onClose: false }, defaultValue: null, tlpFloor: null, filterable: false, archivedAt: null, createdAt: "2026-03-01T12:00:00.000Z", updatedAt: "2026-03-01T12:00:00.000Z", createdBy: null };
      await expect(
        b.storage.transaction(async (tx) => {
          expect(await lifecycleOf(b.deps, tx, w.organizationId, "case")).toMatchObject({ version: 0 });
          await tx.customFields.insert({ ...base, id: "cfd_rolledback000000000000001", key: "rolled_back", label: "Rolled back" });
          // The unit's own write, through the cache.
          expect((await definitionsOf(b.deps, tx, w.organizationId)).map((d) => d.key)).toEqual(["rolled_back"]);
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      // Nothing is read on B in between (a read there would replace its entry): one later write,
      // and a count would now stand where the rolled-back unit's did.
      expect(await keys(kits[2]!)).toEqual([]);
      await w.a.customFields.create(w.admin, { key: "kept", label: "Kept", scopes: ["case"], type: "text" });
      expect(await keys(b)).toEqual(["kept"]);
      await b.storage.transaction(async (tx) => expect((await definitionsOf(b.deps, tx, w.organizationId)).map((d) => d.key)).toEqual(["kept"]));
    });

    it("cached definitions are frozen: no caller can change what other units share", async () => {
      const { kits, w } = await world();
      const b = kits[1]!;
      await w.a.customFields.create(w.admin, { key: "impact", label: "Impact", scopes: ["case"], type: "text" });
      const fields = await b.storage.read((tx) => definitionsOf(b.deps, tx, w.organizationId));
      expect(Object.isFrozen(fields) && Object.isFrozen(fields[0]) && Object.isFrozen(fields[0]!.scopes)).toBe(true);
      expect(() => (fields[0] as { label: string }).label = "changed").toThrow(TypeError);
    });
  });
}
