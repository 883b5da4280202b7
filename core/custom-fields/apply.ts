import type { CaseKitDeps } from "../context.js";
import type { Principal } from "../access/principal.js";
import { CaseKitError } from "../errors.js";
import type { FieldError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { hiddenKeys } from "./floor.js";
import { keepHidden, withoutHidden } from "./redact.js";
import { unmetFieldRequirements } from "./requirements.js";
import type { CustomFieldDefinition, CustomFieldScope } from "./types.js";
import { checkValues, definitionsFor, withDefaults } from "./values.js";
import { definitionsOf } from "./definitions.js";
import { caseTypeOf } from "../case-types/apply.js";

/** The scope's definitions that apply to one record: all, or a case type's list when it names some. */
export async function applicableDefinitions(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, scope: CustomFieldScope, typeFields?: readonly string[]): Promise<CustomFieldDefinition[]> {
  return ofType(definitionsFor(await definitionsOf(deps, tx, organizationId), scope), typeFields);
}

/** `scoped`, narrowed to a case type's list when it names some. */
function ofType(scoped: CustomFieldDefinition[], typeFields: readonly string[] | undefined): CustomFieldDefinition[] {
  return typeFields && typeFields.length > 0 ? scoped.filter((d) => typeFields.includes(d.key)) : scoped;
}

export interface FieldWrite {
  scope: CustomFieldScope;
  /** The body's `customFields` (the whole object, as create and PATCH take it). */
  input: Record<string, unknown>;
  /** The record's values before the write; `{}` at create. */
  previous: Record<string, unknown>;
  creating: boolean;
  /** A case type's field keys, when the case has a type that lists some. */
  typeFields?: readonly string[];
}

/**
 * The values a write stores, or validation_failed listing every field error: unknown keys once
 * the scope has definitions, values that do not fit, users that are not active members, fields
 * above the caller's clearance (which keep their stored value), and at create the defaults and
 * required-on-create fields.
 */
export async function prepareCustomFields(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, write: FieldWrite): Promise<Record<string, unknown>> {
  const scoped = definitionsFor(await definitionsOf(deps, tx, principal.organizationId), write.scope);
  if (scoped.length === 0) return write.input; // no definitions for the scope: free-form, as before
  const definitions = ofType(scoped, write.typeFields);
  const hidden = hiddenKeys(definitions, principal.tlpClearance);
  const errors: FieldError[] = [];
  const visibleInput: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(write.input)) {
    if (hidden.has(key)) errors.push({ path: `customFields.${key}`, message: "is above your TLP clearance" });
    else visibleInput[key] = value;
  }
  const check = checkValues(definitions, visibleInput, write.previous);
  errors.push(...check.errors);
  for (const d of definitions.filter((x) => x.type === "user")) {
    const id = check.values[d.key];
    if (typeof id !== "string" || id === write.previous[d.key]) continue;
    const user = await tx.users.findById(principal.organizationId, id);
    if (!user || user.status !== "active") errors.push({ path: `customFields.${d.key}`, message: "must name an active user of your organization" });
  }
  let values = keepHidden(check.values, write.previous, hidden);
  if (write.creating) {
    values = withDefaults(definitions, values);
    for (const unmet of unmetFieldRequirements({ customFields: values }, definitions, "create")) {
      if (!errors.some((e) => e.path === `customFields.${unmet.key}`)) errors.push({ path: `customFields.${unmet.key}`, message: "is required" });
    }
  }
  if (errors.length > 0) throw new CaseKitError("validation_failed", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
  return values;
}

/**
 * The definitions whose requirements gate a status move of a case, alert or task: its scope's,
 * narrowed to a case's type's list when the type names some (core/lifecycles/engine.ts).
 */
export async function gatingDefinitions(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, scope: "case" | "alert" | "task", typeValue: string | null = null): Promise<CustomFieldDefinition[]> {
  return applicableDefinitions(deps, tx, organizationId, scope, await typeFieldsOf(deps, tx, organizationId, scope, typeValue));
}

/** A case's type's field keys (none for alerts, tasks and untyped cases). */
async function typeFieldsOf(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, scope: "case" | "alert" | "task", typeValue: string | null): Promise<readonly string[] | undefined> {
  return scope === "case" && typeValue !== null ? (await caseTypeOf(deps, tx, organizationId, typeValue))?.customFields : undefined;
}

/**
 * What a status move of one record is gated by, for `principal`: the definitions whose requirements
 * gate it (gatingDefinitions) and the keys of the organization's fields above the caller's
 * clearance, whose gates are named as floor.ts says.
 */
export async function moveFields(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, scope: "case" | "alert" | "task", typeValue: string | null = null): Promise<{ fields: CustomFieldDefinition[]; hidden: ReadonlySet<string> }> {
  const typeFields = await typeFieldsOf(deps, tx, principal.organizationId, scope, typeValue);
  // The organization's definitions read once: the gating ones and the hidden keys both come from them.
  const all = await definitionsOf(deps, tx, principal.organizationId);
  return { fields: ofType(definitionsFor(all, scope), typeFields), hidden: hiddenKeys(all, principal.tlpClearance) };
}

/**
 * Records as the caller may see them (every read and list path), the organization's definitions
 * read once. Only records that hold values can have one hidden: for a page of records without
 * values no definitions are read at all (a statement on SQLite, a round trip on PostgreSQL).
 */
export async function visibleRecords<T extends { organizationId: string; customFields: Record<string, unknown> }>(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, records: T[]): Promise<T[]> {
  // A shared case carries its own organization's fields: its definitions say what is hidden.
  // The hidden keys are worked out once per organization, not once per record.
  const hiddenByOrganization = new Map<string, ReadonlySet<string>>();
  for (const { organizationId, customFields } of records) {
    if (!hiddenByOrganization.has(organizationId) && holdsValues(customFields)) hiddenByOrganization.set(organizationId, hiddenKeys(await definitionsOf(deps, tx, organizationId), principal.tlpClearance));
  }
  // An organization none of whose records holds a value has no entry; withoutHidden passes the others' empty ones through.
  return records.map((r) => {
    const hidden = hiddenByOrganization.get(r.organizationId);
    return hidden === undefined ? r : withoutHidden(r, hidden);
  });
}

/** Whether a record holds any custom field value (an own key: what withoutHidden looks at). */
function holdsValues(values: Record<string, unknown>): boolean {
  for (const key in values) if (Object.hasOwn(values, key)) return true;
  return false;
}
