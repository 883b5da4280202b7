// visibleRecords (core/custom-fields/apply.ts) reads an organization's definitions only for the
// records that hold values: a record without any has nothing to hide. Checked against the rule
// applied with every organization's definitions read, over any records and floors.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../core/access/principal.js";
import { visibleRecords } from "../../core/custom-fields/apply.js";
import type { DefinitionsCache } from "../../core/definitions/cache.js";
import { hiddenKeys } from "../../core/custom-fields/floor.js";
import { withoutHidden } from "../../core/custom-fields/redact.js";
import type { CustomFieldDefinition } from "../../core/custom-fields/types.js";
import type { UnitOfWork } from "../../core/ports/storage.js";

type Row = { id: string; organizationId: string; customFields: Record<string, unknown> };

const organizations = ["org_a", "org_b", "org_c"];
const keys = ["severity", "owner", "ticket"];

/** A definitions cache that answers from `byOrganization` and counts what it was asked. */
function countingDefinitions(byOrganization: ReadonlyMap<string, CustomFieldDefinition[]>): { deps: { definitions: DefinitionsCache }; asked: string[] } {
  const asked: string[] = [];
  const definitions: DefinitionsCache = {
    async read<T>(_tx: UnitOfWork, organizationId: string) {
      asked.push(organizationId);
      return (byOrganization.get(organizationId) ?? []) as T;
    },
    size: () => 0,
  };
  return { deps: { definitions }, asked };
}

const record = fc.record({
  id: fc.uuid(),
  organizationId: fc.constantFrom(...organizations),
  customFields: fc.dictionary(fc.constantFrom(...keys), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 3 }),
});
const floors = fc.array(fc.record({ organizationId: fc.constantFrom(...organizations), key: fc.constantFrom(...keys), tlpFloor: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }) }), { maxLength: 6 });

describe("visibleRecords", () => {
  it("hides what the rule hides, reading definitions only for organizations whose records hold values", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 8 }), floors, fc.integer({ min: 0, max: 4 }), async (records: Row[], fields, clearance) => {
        const byOrganization = new Map<string, CustomFieldDefinition[]>();
        for (const field of fields) byOrganization.set(field.organizationId, [...(byOrganization.get(field.organizationId) ?? []), field as unknown as CustomFieldDefinition]);
        const { deps, asked } = countingDefinitions(byOrganization);
        const principal = { organizationId: "org_a", tlpClearance: clearance } as Principal;
        const shown = await visibleRecords(deps, {} as UnitOfWork, principal, records);
        const expected = records.map((r) => withoutHidden(r, hiddenKeys(byOrganization.get(r.organizationId) ?? [], clearance)));
        expect(shown).toStrictEqual(expected);
        expect(shown).not.toBe(records);
        const holding = new Set(records.filter((r) => Object.keys(r.customFields).length > 0).map((r) => r.organizationId));
        expect(asked.sort()).toEqual([...holding].sort());
      }),
      { numRuns: 300 },
    );
  });
});
