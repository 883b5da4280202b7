/**
 * Cases, declared once: both dialects' tables, rows and SQL come from this declaration. The
 * port's CaseRepository is the generic repository plus one read written once for both dialects:
 * a case of another organization shared with the viewer.
 */
import { highestTlp } from "../../core/access/clearance.js";
import type { Case, CaseFilter, CaseTag } from "../../core/cases/types.js";
import type { CaseRepository } from "../../core/ports/storage.js";
import { id, int, json, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import type { ValueRepository } from "./custom-field-values.js";
import { customFieldFilterSpecs, customFieldFilters, indexCustomFieldValues } from "./custom-field-values.js";
import { pageLimit } from "../shared/case-filter.js";
import { timestampBound } from "../shared/timestamp-bound.js";
import type { UnitState } from "../shared/unit-state.js";
import { checkReading } from "../shared/unit-state.js";

export const caseResource = defineResource({
  table: "cases",
  noun: "A case",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    number: int(),
    title: text(),
    severity: int(),
    description: text({ nullable: true }),
    tlp: int(),
    pap: int(),
    statusValue: text(), // a status key of the organization's case lifecycle (core/lifecycles)
    typeValue: text({ nullable: true }),
    assigneeId: text({ nullable: true }),
    clientId: text({ nullable: true }),
    source: text({ nullable: true }),
    sourceRef: text({ nullable: true }),
    tags: json<CaseTag[]>(),
    teams: json<{ id: string }[]>(),
    /** Other organizations the case is shared with (findSharedWith). */
    organizations: json<string[]>(),
    customFields: json<Record<string, unknown>>(),
    closedAt: timestamp({ nullable: true }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  unique: [{ name: "cases_organization_id_number_unique", columns: ["organizationId", "number"], conflict: "The organization already has a case with this number" }],
  // A page is one range of one of these, newest first: a one-value status, severity or assignee
  // filter walks its own index, anything else (organization_id, id). The GIN index (PostgreSQL
  // only) serves the tag filter.
  indexes: [
    { name: "cases_organization_id_idx", columns: ["organizationId", "id"] },
    { name: "cases_organization_id_status_value_idx", columns: ["organizationId", "statusValue", "id"] },
    { name: "cases_organization_id_severity_idx", columns: ["organizationId", "severity", "id"] },
    { name: "cases_organization_id_assignee_id_idx", columns: ["organizationId", "assigneeId", "id"] },
    { name: "cases_tags_idx", columns: ["tags"], gin: true },
  ],
  // Listed far more often than any case is written: a page of 50 reads 50 stored texts.
  storedRecord: true,
  filters: {
    maxTlp: { kind: "condition", column: "tlp", sql: "tlp <= ?", holdsFrom: highestTlp },
    statusValue: { kind: "anyOf", column: "statusValue" },
    severity: { kind: "anyOf", column: "severity" },
    tlp: { kind: "anyOf", column: "tlp" },
    assigneeId: { kind: "anyOf", column: "assigneeId" },
    source: { kind: "anyOf", column: "source" },
    typeValue: { kind: "anyOf", column: "typeValue" },
    tag: { kind: "jsonTags", column: "tags", key: "name" },
    created: { kind: "range", column: "createdAt" },
    // cf.<key>=<value>, up to three at once, in the form each value's count calls for
    // (adapters/resources/custom-field-values.ts).
    ...customFieldFilterSpecs("cases", "title"),
  },
});

/** Compile-time proof that the declaration stores exactly the core's Case. */
export const _caseRecordMatches: Same<RecordOf<typeof caseResource>, Case> = true;

/** The bespoke read, built once per dialect. */
function caseSql(dialect: Dialect) {
  const p = dialect.param;
  return {
    /** Found by its primary key, then checked: another organization's case whose list names the viewer. */
    sharedWith: `SELECT ${dialect.selectRecord(caseResource)} FROM cases WHERE id = ${p(1)} AND organization_id <> ${p(2)} AND ${dialect.jsonHasAny("cases.organizations", p(3), undefined)}`,
  };
}
export const caseSqlFor = oncePerDialect(caseSql);

export function caseRepository(cases: DeclaredRepository<Case, FilterValues<typeof caseResource>>, dialect: Dialect, executor: Executor, unit: UnitState, values: ValueRepository): CaseRepository {
  const { sharedWith } = caseSqlFor(dialect);
  return {
    async insert(record) {
      await cases.insert(record);
      await indexCustomFieldValues(values, "case", record, true);
    },
    findById: (organizationId, id) => cases.findById(organizationId, id),
    findMany: (organizationId, ids) => cases.findMany(organizationId, ids),
    async findSharedWith(viewerOrganizationId, id) {
      checkReading(unit);
      const viewer = dialect.jsonNames ? dialect.jsonNames([viewerOrganizationId], undefined) : dialect.list([viewerOrganizationId]);
      const [found] = await executor.records<Case>(sharedWith, [id, viewerOrganizationId, viewer]);
      return found ?? null;
    },
    async update(record) {
      const written = await cases.update(record);
      if (written) await indexCustomFieldValues(values, "case", record, false);
      return written;
    },
    async list(organizationId, { createdAfter, createdBefore, customField, ...filter }: CaseFilter, page) {
      const after = timestampBound("createdAfter", createdAfter);
      const before = timestampBound("createdBefore", createdBefore);
      const created = after === undefined && before === undefined ? undefined : { after, before };
      if (customField?.length) checkReading(unit);
      const byValue = await customFieldFilters(dialect, executor, organizationId, "case", customField, pageLimit(page));
      // Object.assign, not a spread's copy plus members (V8 adds those slowly).
      return cases.list(organizationId, Object.assign({}, filter, { created }, byValue), { limit: pageLimit(page), order: "desc", after: page.beforeId });
    },
  };
}
