import type { Principal } from "../access/principal.js";
import { checkStatusFilter } from "../lifecycles/filter-check.js";
import { checkClosedChange } from "../access/closed-records.js";
import { requireClearance, requireScope } from "../access/principal.js";
import { visibleUpTo } from "../access/clearance.js";
import { recordEdit } from "../audit/record-edit.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError, unknownReference } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { guardTlp, withTlpDenialAudit } from "../tlp/audit-log.js";
import { auditListed, auditView } from "../tlp/audit-view.js";
import type { TlpAction } from "../tlp/types.js";
import { parse } from "../validation.js";
import { recordStatusMoves } from "../history/record.js";
import { lifecycleOf } from "../lifecycles/current.js";
import { checkMove, firstNewStatus, isCategory, requireInitial, requireStatus } from "../lifecycles/engine.js";
import { openKeys } from "../lifecycles/tables.js";
import { moveFields } from "../custom-fields/apply.js";
import { severityRequired, shapeCaseChange, shapeNewCase } from "../case-types/case-fields.js";
import { caseLifecycleOf } from "../lifecycles/case-lifecycle.js";
import { checkReentry } from "./lifecycle-switch.js";
import { visibleRecords } from "../custom-fields/apply.js";
import { customFieldMatches, omittedMarkings, withoutCustomFieldFilters } from "../custom-fields/list-filter.js";
import { caseCreateSchema, caseListQuerySchema, caseUpdateSchema } from "./schema.js";
import type { Case } from "./types.js";

export interface CaseService {
  create(principal: Principal, input: unknown): Promise<Case>;
  get(principal: Principal, id: string): Promise<Case>;
  list(principal: Principal, query: unknown): Promise<{ data: Case[]; nextCursor: string | null }>;
  update(principal: Principal, id: string, input: unknown): Promise<Case>;
  /** `update` with a reason for the status history (POST /cases/{id}/transitions). */
  change(principal: Principal, id: string, input: unknown, reason: string | undefined): Promise<Case>;
  /** The case as the caller may see it, read in `tx` (transitions and history check access as a read does). */
  loadVisible(tx: UnitOfWork, principal: Principal, id: string, action: TlpAction): Promise<Case>;
}

export function createCaseService(deps: CaseKitDeps): CaseService {
  const { storage, clock, ids } = deps;

  /**
   * The case as the caller may see it: its own organization's, or one shared with it while both
   * organizations' policies allow sharing (read-only). Unknown and other-tenant ids, and cases
   * shared while a policy forbids sharing, are 404 alike; a record above the caller's clearance is
   * 403 (and audited as denied).
   */
  async function loadVisible(tx: UnitOfWork, principal: Principal, id: string, action: TlpAction): Promise<Case> {
    const own = await tx.cases.findById(principal.organizationId, id);
    if (own) {
      guardTlp(principal, own, "case", action);
      return own;
    }
    const shared = await tx.cases.findSharedWith(principal.organizationId, id);
    const [ours, theirs] = shared
      ? await Promise.all([tx.organizations.findById(principal.organizationId), tx.organizations.findById(shared.organizationId)])
      : [null, null];
    // Not shared, or shared while a policy says no: nothing tells it from an id that never existed.
    if (!shared || !ours?.policy.allowCaseSharing || !theirs?.policy.allowCaseSharing) throw new CaseKitError("not_found", `No case ${id}`);
    guardTlp(principal, shared, "case", action);
    return shared;
  }

  /** References must name records the caller's organization can use. */
  async function checkReferences(tx: UnitOfWork, principal: Principal, value: Partial<Case>): Promise<void> {
    if (value.assigneeId) {
      const user = await tx.users.findById(principal.organizationId, value.assigneeId);
      if (!user || user.status !== "active") throw unknownReference("assigneeId", "must name an active user of your organization");
    }
    for (const [index, team] of (value.teams ?? []).entries()) {
      if (!(await tx.teams.findById(principal.organizationId, team.id))) throw unknownReference(`teams.${index}.id`, "must name a team of your organization");
    }
    if (value.organizations && value.organizations.length > 0) {
      await checkSharing(tx, principal, value.organizations);
    }
  }

  /**
   * Sharing needs both sides' policies to allow it. An id that names no organization and one of an
   * organization that does not accept shared cases get the same answer, so sharing never tells
   * whether another tenant exists.
   */
  async function checkSharing(tx: UnitOfWork, principal: Principal, organizations: string[]): Promise<void> {
    if (organizations.includes(principal.organizationId)) throw unknownReference("organizations", "lists the case's own organization");
    const ours = await tx.organizations.findById(principal.organizationId);
    if (!ours?.policy.allowCaseSharing) throw new CaseKitError("organization_restricted", "Your organization's policy does not allow sharing cases");
    for (const id of organizations) {
      const theirs = await tx.organizations.findById(id);
      if (!theirs?.policy.allowCaseSharing) throw unknownReference("organizations", "must name only organizations that accept shared cases");
    }
  }

  const service: CaseService = {
    async create(principal, input) {
      requireScope(principal, "cases:write");
      const parsed = parse(caseCreateSchema, input);
      // Without a type no default severity can apply: refused before any read, as the schema did.
      if (parsed.severity === undefined && parsed.typeValue === undefined) throw severityRequired();
      // Nobody may create what they could not read back.
      requireClearance(principal, parsed.tlp);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        // The number first: taking it holds the organization row, which brings the definitions
        // version the cached definitions below are checked against (no statement of its own),
        // and keeps definitions changes from committing until this unit ends.
        const number = await tx.organizations.nextCaseNumber(principal.organizationId);
        const typeValue = parsed.typeValue ?? null;
        // What the type gives (markings, severity, custom fields), over what the body gave.
        const shaped = await shapeNewCase(deps, tx, principal, { typeValue, tlp: parsed.tlp, pap: parsed.pap, severity: parsed.severity, customFields: parsed.customFields }, omittedMarkings(input));
        await checkReferences(tx, principal, parsed);
        const lifecycle = await caseLifecycleOf(deps, tx, principal.organizationId, typeValue);
        const statusValue = parsed.statusValue === undefined ? firstNewStatus(lifecycle) : requireInitial(lifecycle, parsed.statusValue, "statusValue").key;
        const at = now.toISOString();
        const record: Case = {
          id: ids.next("case"),
          organizationId: principal.organizationId,
          number,
          title: parsed.title,
          severity: shaped.severity,
          description: parsed.description ?? null,
          tlp: shaped.tlp,
          pap: shaped.pap,
          statusValue,
          typeValue,
          assigneeId: parsed.assigneeId ?? null,
          clientId: parsed.clientId ?? null,
          source: parsed.source ?? null,
          sourceRef: parsed.sourceRef ?? null,
          tags: parsed.tags,
          teams: parsed.teams,
          organizations: [...new Set(parsed.organizations)],
          customFields: shaped.customFields,
          closedAt: null,
          createdAt: at,
          updatedAt: at,
          createdBy: principal.userId,
        };
        await tx.cases.insert(record);
        await recordStatusMoves(deps, tx, principal, lifecycle, [{ recordId: record.id, from: null, to: record.statusValue }], now);
        await recordEdit(deps, tx, principal, { name: "case.created", resourceType: "case", before: null, after: record, now });
        return (await visibleRecords(deps, tx, principal, [record]))[0]!;
      });
    },

    async get(principal, id) {
      requireScope(principal, "cases:read");
      return withTlpDenialAudit(deps, principal, () => {
        const now = clock.now();
        return storage.transaction(async (tx) => {
          const found = await loadVisible(tx, principal, id, "view");
          await auditView(deps, tx, principal, "case", found, now);
          return (await visibleRecords(deps, tx, principal, [found]))[0]!;
        });
      });
    },

    async list(principal, query) {
      requireScope(principal, "cases:read");
      const { limit, cursor, ...filters } = parse(caseListQuerySchema, withoutCustomFieldFilters(query));
      const beforeId = decodeCursor(cursor);
      const rows = await storage.read(async (tx) => {
        await checkStatusFilter(deps, tx, principal.organizationId, "case", filters.statusValue, "statusValue");
        const customField = await customFieldMatches(deps, tx, principal, "case", query);
        // Object.assign, not a spread's copy plus members (V8 adds those slowly); ours still win.
        const filter = Object.assign({}, filters, { customField, maxTlp: visibleUpTo(principal.tlpClearance) });
        return visibleRecords(deps, tx, principal, await tx.cases.list(principal.organizationId, filter, { limit: limit + 1, beforeId }));
      });
      const page = toPage(rows, limit);
      await auditListed(deps, principal, "case", page.data);
      return page;
    },

    update(principal, id, input) {
      return service.change(principal, id, input, undefined);
    },

    async change(principal, id, input, reason) {
      requireScope(principal, "cases:write");
      const patch = parse(caseUpdateSchema, input);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const action: TlpAction = patch.tlp !== undefined ? "change" : "edit";
          const before = await loadVisible(tx, principal, id, action);
          if (before.organizationId !== principal.organizationId) {
            throw new CaseKitError("organization_restricted", "A case shared with your organization is read-only");
          }
          guardTlp(principal, before, "case", action, patch.tlp ?? before.tlp);
          await checkReferences(tx, principal, patch);
          // The type decides the lifecycle (core/lifecycles/case-lifecycle.ts): checked first.
          const shaped = await shapeCaseChange(deps, tx, principal, before, {
            ...before,
            ...patch,
            organizations: patch.organizations ? [...new Set(patch.organizations)] : before.organizations,
            updatedAt: now.toISOString(),
          }, patch.customFields !== undefined);
          const from = await caseLifecycleOf(deps, tx, principal.organizationId, before.typeValue);
          const lifecycle = shaped.typeValue === before.typeValue ? from : await caseLifecycleOf(deps, tx, principal.organizationId, shaped.typeValue);
          if (patch.statusValue !== undefined) requireStatus(lifecycle, patch.statusValue, "statusValue");
          const status = patch.statusValue ?? before.statusValue;
          const after: Case = { ...shaped, closedAt: isCategory(lifecycle, status, "closed") ? (before.closedAt ?? now.toISOString()) : null };
          const { fields, hidden } = await moveFields(deps, tx, principal, "case", after.typeValue);
          // A closed case changes nothing but by its lifecycle's moves (core/access/closed-records.ts).
          const closedCheck = () => checkClosedChange(from, before, after, lifecycle);
          if (from.key !== lifecycle.key) closedCheck();
          // A new type's lifecycle without the case's status: the case enters it where the request says (lifecycle-switch.ts).
          if (!checkReentry(from, lifecycle, before, after, patch.statusValue !== undefined, fields, hidden)) {
            // The move, its roles and gates (closing needs the mandatory tasks done), and between
            // them: a closed case takes only its lifecycle's moves.
            await checkMove(lifecycle, before.statusValue, status, after, {
              principal,
              stored: before,
              reason,
              hasOpenMandatoryTasks: async () => tx.tasks.hasOpenMandatory(principal.organizationId, id, openKeys(await lifecycleOf(deps, tx, principal.organizationId, "task"))),
              beforeGates: closedCheck,
              fields,
              hidden,
            });
          }
          await tx.cases.update(after);
          await recordStatusMoves(deps, tx, principal, lifecycle, [{ recordId: id, from: before.statusValue, to: status, fromLifecycle: from }], now, reason);
          await recordEdit(deps, tx, principal, { name: "case.updated", resourceType: "case", before, after, now });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },

    loadVisible,
  };
  return service;
}
