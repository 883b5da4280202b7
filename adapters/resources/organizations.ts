/**
 * Organizations, declared once: both dialects' tables, rows and SQL come from this declaration.
 * No tenant owns them (they are the tenants). The table also keeps the adapter's own counters,
 * declared internal: the case number and the TLP audit chain's head, both read once and written
 * once per unit of work (organization-counters.ts), and the access and definitions versions
 * (moved by triggers, read here and with the counters).
 */
import { CaseKitError } from "../../core/errors.js";
import type { OrganizationPolicy } from "../../core/organizations/policy.js";
import { defaultOrganizationPolicy } from "../../core/organizations/policy.js";
import type { Organization } from "../../core/organizations/types.js";
import type { OrganizationRepository } from "../../core/ports/storage.js";
import { id, int, internal, nullableJson, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";
import { organizationCounters } from "./organization-counters.js";

export const organizationResource = defineResource({
  table: "organizations",
  noun: "An organization",
  tenant: null,
  columns: {
    id: id({ unsorted: true }),
    name: text(),
    /** NULL (rows older than the column) or missing later settings: read back over the defaults. */
    policy: nullableJson<Partial<OrganizationPolicy>>(),
    /** The last case number handed out (nextCaseNumber). */
    caseSeq: internal(int({ default: 0 })),
    /** The TLP audit chain's head: the last entry's seq and hash (TlpAuditRepository.head). */
    tlpAuditSeq: internal(int({ default: 0 })),
    tlpAuditHash: internal(text({ default: "" })),
    /** The audit events chain's head: the last position written and its row's hash (AuditRepository.head). */
    auditSeq: internal(int({ default: 0 })),
    auditHash: internal(text({ default: "" })),
    /** The last position written before audit events were chained: rows up to it are legacy, unhashed (AuditRepository.chainStart). */
    auditLegacySeq: internal(int({ default: 0 })),
    /**
     * Moves on every committed change that affects access in the organization (its keys, users or
     * policy); the in-memory access cache (core/access/access-cache.ts) reuses what it loaded while
     * this is unchanged. Moved by database triggers, never by the record (see the migration
     * `*_access_version.sql`): any write, through casekit or by hand, moves it in its own transaction.
     */
    accessVersion: internal(int({ default: 0 })),
    /**
     * Takes a new value on every committed or uncommitted write of the organization's lifecycles,
     * custom field definitions or case types; the in-memory definitions cache
     * (core/definitions/cache.ts) reuses what it loaded while this is unchanged. A token, not a
     * count: the triggers (migration `*_definitions_version.sql`) draw a random 53-bit value, so a
     * value some rolled-back transaction showed is never the value of a later state. 0 until the
     * first write.
     */
    definitionsVersion: internal(int({ default: 0, big: true })),
    /**
     * How many of the organization's webhooks are active. Kept by database triggers on the
     * webhooks table (migration `*_active_webhooks.sql`), in the transaction of the change, by
     * increments (two concurrent changes on PostgreSQL both count). An event written while it is 0
     * has no subscription to reach, so it is written already dispatched (adapters/resources/events.ts).
     */
    activeWebhooks: internal(int({ default: 0 })),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  // An update replaces name, policy and updatedAt.
  fixed: ["createdAt"],
  unique: [{ name: "organizations_name_unique", columns: ["name"], constraint: true, conflict: "An organization with this name already exists" }],
});

/** Compile-time proof that the declaration stores the core's Organization, its policy as stored. */
type StoredOrganization = Omit<Organization, "policy"> & { policy: Partial<OrganizationPolicy> | null };
export const _organizationRecordMatches: Same<RecordOf<typeof organizationResource>, StoredOrganization> = true;

/**
 * The stored policy over the defaults: settings added after a row was written (or a NULL policy)
 * read as their defaults. A fresh object every time, so callers may change what they get.
 */
export function policyFromColumn(stored: Partial<OrganizationPolicy> | null): OrganizationPolicy {
  // Defaults are copied deeply: they hold arrays and objects (allowedTiers, rateLimits).
  return { ...structuredClone(defaultOrganizationPolicy), ...stored };
}

/** The bespoke statements, built once per dialect. */
const organizationSqlFor = oncePerDialect((dialect: Dialect) => ({
  existingIds: `SELECT id FROM organizations WHERE ${dialect.anyOf("id", dialect.param(1))}`,
  idsAfter: `SELECT id FROM organizations WHERE id > ${dialect.param(1)} ORDER BY id LIMIT ${dialect.param(2)}`,
  accessVersion: accessVersionSql(dialect),
}));

/** The access version read on every authenticated request: one primary-key lookup. */
export const accessVersionSql = (dialect: Dialect): string => `SELECT access_version FROM organizations WHERE id = ${dialect.param(1)}`;

/** An organization's columns as a joined row's `<prefix><name>`, and the record read back from them. */
export const joinedOrganization = {
  columns: (prefix: string): string => organizationResource.fields.map((f) => `organizations.${f.name} AS ${prefix}${f.name}`).join(", "),
  read(row: Record<string, unknown>, prefix: string): Organization {
    const stored = recordOf<StoredOrganization>(organizationResource, row, prefix);
    return { ...stored, policy: policyFromColumn(stored.policy) };
  },
};

export function organizationRepository(
  organizations: DeclaredRepository<StoredOrganization, FilterValues<typeof organizationResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): OrganizationRepository {
  const { reading, writing } = unitGuards(unit);
  const { existingIds, idsAfter, accessVersion } = organizationSqlFor(dialect);
  const counters = organizationCounters(dialect, executor, unit);

  return {
    insert: (org) => organizations.insert(org),
    async findById(id) {
      const stored = await organizations.findById(null, id);
      return stored ? { ...stored, policy: policyFromColumn(stored.policy) } : null;
    },
    update: (org) => organizations.update(org),
    async existingIds(ids) {
      reading();
      if (ids.length === 0) return [];
      return (await executor.all(existingIds, [dialect.list(ids)])).map((row) => row.id as string);
    },
    async idsAfter(afterId, limit) {
      reading();
      return (await executor.all(idsAfter, [afterId, limit])).map((row) => row.id as string);
    },
    // The held row (PostgreSQL's row lock, SQLite's one writer) gives each unit its own numbers.
    async nextCaseNumber(organizationId) {
      writing();
      const held = await counters.held(organizationId);
      if (!held) throw new CaseKitError("not_found", `No organization ${organizationId}`);
      held.caseSeq += 1;
      counters.changed(organizationId);
      return held.caseSeq;
    },
    async accessVersion(organizationId) {
      reading();
      const [row] = await executor.all(accessVersion, [organizationId]);
      return row ? Number(row.access_version) : null;
    },
    definitionsVersion(organizationId) {
      reading();
      return counters.definitionsVersion(organizationId);
    },
  };
}
