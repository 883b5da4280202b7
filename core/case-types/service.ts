import type { z } from "zod";
import { archivedAtAfter } from "../definitions/archiving.js";
import { definitionReads } from "../definitions/reads.js";
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import { caseTypeCreateSchema, caseTypeListQuerySchema, caseTypeUpdateSchema } from "./schema.js";
import type { CaseType } from "./types.js";
import { definitionsOf } from "../custom-fields/definitions.js";
import { lifecycleSwitchProblems, requireCaseLifecycle, statusNotInLifecycle } from "./lifecycle-rules.js";

/** A new case type from a parsed create body: the route and the configuration import build it alike. */
export function newCaseType(principal: Principal, id: string, body: z.output<typeof caseTypeCreateSchema>, now: Date): CaseType {
  const at = now.toISOString();
  return {
    id,
    organizationId: principal.organizationId,
    key: body.key,
    label: body.label,
    description: body.description ?? null,
    defaultTlp: body.defaultTlp ?? null,
    defaultPap: body.defaultPap ?? null,
    defaultSeverity: body.defaultSeverity ?? null,
    customFields: body.customFields,
    lifecycle: body.lifecycle ?? null,
    archivedAt: null,
    createdAt: at,
    updatedAt: at,
    createdBy: principal.userId,
  };
}

/** A case type after a parsed change; `archived` keeps the first archiving time. */
export function changedCaseType(before: CaseType, patch: Omit<z.output<typeof caseTypeUpdateSchema>, "archived">, archived: boolean | undefined, now: Date): CaseType {
  return { ...before, ...patch, archivedAt: archivedAtAfter(before.archivedAt, archived, now), updatedAt: now.toISOString() };
}

/** Case types: read with `cases:read`, changed by admins (`org:admin`); every change is audited and emitted. */
export function createCaseTypeService(deps: CaseKitDeps) {
  const { storage, clock, ids } = deps;
  const reads = definitionReads(storage, "case type", (tx) => tx.caseTypes, caseTypeListQuerySchema);
  const load = reads.load;

  /** The listed fields must be case custom fields of the organization. */
  async function checkFields(tx: UnitOfWork, principal: Principal, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const caseFields = new Set((await definitionsOf(deps, tx, principal.organizationId)).filter((d) => d.scopes.includes("case")).map((d) => d.key));
    const errors = keys.flatMap((key, index) => (caseFields.has(key) ? [] : [{ path: `customFields.${index}`, message: `${JSON.stringify(key)} is not a case custom field of your organization` }]));
    if (errors.length > 0) throw new CaseKitError("unknown_reference", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
  }

  return {
    async create(principal: Principal, input: unknown): Promise<CaseType> {
      requireScope(principal, "org:admin");
      const body = parse(caseTypeCreateSchema, input);
      const now = clock.now();
      const type = newCaseType(principal, ids.next("ctype"), body, now);
      return storage.transaction(async (tx) => {
        await checkFields(tx, principal, type.customFields);
        await requireCaseLifecycle(deps, tx, principal.organizationId, type.lifecycle, "lifecycle");
        await tx.caseTypes.insert(type);
        await recordChange(deps, tx, principal, { name: "case_type.created", resourceType: "case_type", before: null, after: type, tlp: null, now });
        return type;
      });
    },

    async update(principal: Principal, id: string, input: unknown): Promise<CaseType> {
      requireScope(principal, "org:admin");
      const { archived, ...patch } = parse(caseTypeUpdateSchema, input);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        if (patch.customFields) await checkFields(tx, principal, patch.customFields);
        const after = changedCaseType(before, patch, archived, now);
        if (after.lifecycle !== before.lifecycle) {
          const to = await requireCaseLifecycle(deps, tx, principal.organizationId, after.lifecycle, "lifecycle");
          const problems = await lifecycleSwitchProblems(deps, tx, principal.organizationId, before.key, await requireCaseLifecycle(deps, tx, principal.organizationId, before.lifecycle, "lifecycle"), to, "lifecycle");
          if (problems.length > 0) throw statusNotInLifecycle(problems);
        }
        await tx.caseTypes.update(after);
        await recordChange(deps, tx, principal, { name: "case_type.updated", resourceType: "case_type", before, after, tlp: null, now });
        return after;
      });
    },

    /** Deleting a type some case (of any TLP) still names is 409: archive it instead. */
    async delete(principal: Principal, id: string): Promise<CaseType> {
      requireScope(principal, "org:admin");
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        const used = await tx.cases.list(principal.organizationId, { maxTlp: 4, typeValue: [before.key] }, { limit: 1 });
        if (used.length > 0) throw new CaseKitError("conflict", `Cases of type ${before.key} exist: archive the type instead`);
        await tx.caseTypes.delete(principal.organizationId, id);
        await recordChange(deps, tx, principal, { name: "case_type.deleted", resourceType: "case_type", before, after: before, tlp: null, now, gone: true });
        return before;
      });
    },

    get: reads.get,
    list: reads.list,
  };
}

export type CaseTypeService = ReturnType<typeof createCaseTypeService>;
