import type { Principal } from "../access/principal.js";
import { requireClearance, requireScope } from "../access/principal.js";
import { visibleUpTo } from "../access/clearance.js";
import { recordEdit } from "../audit/record-edit.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError, invalidField } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { withTlpDenialAudit } from "../tlp/audit-log.js";
import { auditView, showListed } from "../tlp/audit-view.js";
import { inheritedTlpOfMany } from "../tlp/lineage.js";
import type { Reached } from "../tlp/reach.js";
import { reachRecord } from "../tlp/reach.js";
import type { TlpAction } from "../tlp/types.js";
import { parse } from "../validation.js";
import { prepareCustomFields, visibleRecords } from "../custom-fields/apply.js";
import { customFieldMatches, withoutCustomFieldFilters } from "../custom-fields/list-filter.js";
import { normalizeData, searchSpellings } from "./data-types.js";
import { saveDeduplicated } from "./dedupe.js";
import { loadParent } from "./parent.js";
import { observableCreateSchema, observableListQuerySchema, observableParentListQuerySchema, observableUpdateSchema } from "./schema.js";
import type { Observable, ObservableFilter, ObservableParent } from "./types.js";

type Page = { data: Observable[]; nextCursor: string | null };

export interface ObservableService {
  /** Adds an observable to a case or an alert; a value the parent already has merges into it. */
  create(principal: Principal, parent: ObservableParent, input: unknown): Promise<Observable & { deduplicated: boolean }>;
  /** The parent's live observables. */
  listOf(principal: Principal, parent: ObservableParent, query: unknown): Promise<Page>;
  /** Live observables across the organization ("where else have we seen this?"). */
  list(principal: Principal, query: unknown): Promise<Page>;
  get(principal: Principal, id: string): Promise<Observable>;
  update(principal: Principal, id: string, input: unknown): Promise<Observable>;
  /** Soft delete: the record keeps its data, gets deletedAt / deletedBy, and leaves every read. */
  delete(principal: Principal, id: string): Promise<Observable>;
}

export function createObservableService(deps: CaseKitDeps): ObservableService {
  const { storage, clock, ids } = deps;

  /**
   * The live observable, reachable only while its parent is (404 otherwise), at its effective TLP
   * (the higher of its own and its parent's: core/tlp/reach.ts) for `action`, and at the one a new
   * marking `tlpAfter` would give it.
   */
  async function loadVisible(tx: UnitOfWork, principal: Principal, id: string, action: TlpAction, tlpAfter?: number): Promise<Reached<Observable>> {
    const found = await tx.observables.findById(principal.organizationId, id);
    if (!found) throw new CaseKitError("not_found", `No observable ${id}`);
    return reachRecord(tx, principal, "observable", found, action, tlpAfter);
  }

  /** The parsed list query as a repository filter: `data` widened to every stored spelling. */
  function toFilter(principal: Principal, query: Omit<ObservableFilter, "maxTlp" | "data"> & { data?: string[] | undefined }): ObservableFilter {
    const { data, ...rest } = query;
    const filter: ObservableFilter = { ...rest, maxTlp: visibleUpTo(principal.tlpClearance) };
    if (data !== undefined) filter.data = searchSpellings(data, query.dataType);
    return filter;
  }

  return {
    async create(principal, parent, input) {
      requireScope(principal, "observables:write");
      const body = parse(observableCreateSchema, input);
      const normalized = normalizeData(body.dataType, body.data);
      if (!normalized.ok) throw invalidField("data", normalized.message);
      // Nobody may create what they could not read back.
      if (body.tlp !== undefined) requireClearance(principal, body.tlp);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const visible = await loadParent(tx, principal, parent, "edit");
          const customFields = await prepareCustomFields(deps, tx, principal, { scope: "observable", input: body.customFields, previous: {}, creating: true });
          const at = now.toISOString();
          const candidate: Observable = {
            id: ids.next("obs"),
            organizationId: principal.organizationId,
            caseId: parent.kind === "case" ? parent.id : null,
            alertId: parent.kind === "alert" ? parent.id : null,
            dataType: body.dataType,
            data: normalized.value,
            tlp: body.tlp ?? visible.tlp,
            pap: body.pap,
            ioc: body.ioc,
            sighted: body.sighted,
            tags: body.tags,
            message: body.message ?? null,
            customFields,
            createdAt: at,
            updatedAt: at,
            createdBy: principal.userId,
            deletedAt: null,
            deletedBy: null,
          };
          const { record, outcome } = await saveDeduplicated(deps, tx, principal, candidate, now);
          return { ...(await visibleRecords(deps, tx, principal, [record]))[0]!, deduplicated: outcome !== "created" };
        }),
      );
    },

    async listOf(principal, parent, query) {
      requireScope(principal, "observables:read");
      const { limit, cursor, ...filters } = parse(observableParentListQuerySchema, withoutCustomFieldFilters(query));
      const beforeId = decodeCursor(cursor);
      const filter = toFilter(principal, filters);
      if (parent.kind === "case") filter.caseId = [parent.id];
      else filter.alertId = [parent.id];
      const { visible, rows } = await withTlpDenialAudit(deps, principal, () =>
        storage.read(async (tx) => {
          const visible = await loadParent(tx, principal, parent, "view");
          const customField = await customFieldMatches(deps, tx, principal, "observable", query);
          return { visible, rows: await visibleRecords(deps, tx, principal, await tx.observables.list(principal.organizationId, { ...filter, customField }, { limit: limit + 1, beforeId })) };
        }),
      );
      return showListed(deps, principal, "observable", toPage(rows, limit), visible.tlp);
    },

    async list(principal, query) {
      requireScope(principal, "observables:read");
      const { limit, cursor, ...filters } = parse(observableListQuerySchema, withoutCustomFieldFilters(query));
      const beforeId = decodeCursor(cursor);
      const filter = toFilter(principal, filters);
      const { page, inherited } = await storage.read(async (tx) => {
        const customField = await customFieldMatches(deps, tx, principal, "observable", query);
        const rows = await tx.observables.list(principal.organizationId, { ...filter, customField }, { limit: limit + 1, beforeId });
        const page = toPage(await visibleRecords(deps, tx, principal, rows), limit);
        return { page, inherited: await inheritedTlpOfMany(tx, principal.organizationId, "observable", page.data) };
      });
      return showListed(deps, principal, "observable", page, inherited);
    },

    async get(principal, id) {
      requireScope(principal, "observables:read");
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const { record, tlp } = await loadVisible(tx, principal, id, "view");
          await auditView(deps, tx, principal, "observable", { id: record.id, tlp }, now);
          return (await visibleRecords(deps, tx, principal, [record]))[0]!;
        }),
      );
    },

    async update(principal, id, input) {
      requireScope(principal, "observables:write");
      const patch = parse(observableUpdateSchema, input);
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const action: TlpAction = patch.tlp !== undefined ? "change" : "edit";
          const { record: before } = await loadVisible(tx, principal, id, action, patch.tlp);
          const after: Observable = { ...before, ...patch, updatedAt: now.toISOString() };
          if (patch.customFields !== undefined) after.customFields = await prepareCustomFields(deps, tx, principal, { scope: "observable", input: patch.customFields, previous: before.customFields, creating: false });
          await tx.observables.update(after);
          await recordEdit(deps, tx, principal, { name: "observable.updated", resourceType: "observable", before, after, now });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },

    async delete(principal, id) {
      requireScope(principal, "observables:write");
      const now = clock.now();
      return withTlpDenialAudit(deps, principal, () =>
        storage.transaction(async (tx) => {
          const { record: before } = await loadVisible(tx, principal, id, "delete");
          const at = now.toISOString();
          const after: Observable = { ...before, updatedAt: at, deletedAt: at, deletedBy: principal.userId };
          await tx.observables.update(after);
          await recordEdit(deps, tx, principal, { name: "observable.deleted", resourceType: "observable", before, after, now, tlpAction: "delete" });
          return (await visibleRecords(deps, tx, principal, [after]))[0]!;
        }),
      );
    },
  };
}
