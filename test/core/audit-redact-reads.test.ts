// redactForReader (core/audit/redact.ts) reads the organization's custom field definitions only
// for a page whose changes touch a custom field: no other change can be hidden by a field's floor.
// Checked against the same redaction with the definitions always read, over any pages and floors.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactAuditEvent, redactForReader } from "../../core/audit/redact.js";
import type { AuditEvent } from "../../core/audit/types.js";
import { hiddenKeys } from "../../core/custom-fields/floor.js";
import type { CustomFieldDefinition } from "../../core/custom-fields/types.js";
import type { DefinitionsCache } from "../../core/definitions/cache.js";
import type { UnitOfWork } from "../../core/ports/storage.js";

const paths = ["title", "severity", "customFields.informant", "customFields.region.name", "customFieldsNote"];

const event = fc.record({
  id: fc.uuid(),
  tlp: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  changes: fc.array(fc.record({ path: fc.constantFrom(...paths), before: fc.option(fc.string(), { nil: null }), after: fc.option(fc.string(), { nil: null }) }), { maxLength: 4 }),
}).map(({ id, tlp, changes }): AuditEvent => ({
  id,
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
  changes,
  bulkRequestId: null,
  tlp,
}));
const floors = fc.array(fc.record({ key: fc.constantFrom("informant", "region", "other"), tlpFloor: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }) }), { maxLength: 3 });

describe("redactForReader", () => {
  it("redacts as with the definitions always read, reading them only for pages that change a custom field", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 6 }), floors, fc.integer({ min: 0, max: 4 }), async (events, fields, clearance) => {
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
});
