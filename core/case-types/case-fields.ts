import type { CaseKitDeps } from "../context.js";
import type { Principal } from "../access/principal.js";
import { requireClearance } from "../access/principal.js";
import type { Case } from "../cases/types.js";
import { prepareCustomFields } from "../custom-fields/apply.js";
import type { UnitOfWork } from "../ports/storage.js";
import { caseTypeOf, hasCaseTypes, resolveCaseType } from "./apply.js";
import { definitionsOf } from "../custom-fields/definitions.js";
import { CaseKitError } from "../errors.js";

type NewCase = Pick<Case, "tlp" | "pap" | "typeValue" | "customFields"> & { severity?: number | undefined };

/**
 * A case create that gives no severity and whose type (if any) has no default. Its own code, not
 * validation_failed: the body is valid by the schema (severity is optional there), and whether it
 * may be left out depends on the organization's stored case types, as unknown_case_type does.
 */
export function severityRequired(): CaseKitError {
  const message = "is required (the case's type gives no defaultSeverity)";
  return new CaseKitError("severity_required", `severity: ${message}`, [{ path: "severity", message }]);
}

/**
 * A new case's type and custom fields: typeValue must name a live case type once the
 * organization has any; the type's default TLP, PAP and severity apply where the body left them
 * out (`omitted` names what the raw body did not give; a severity missing with no default is
 * 400 severity_required); custom fields are checked and defaulted (core/custom-fields/apply.ts).
 */
export async function shapeNewCase(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, value: NewCase, omitted: { tlp: boolean; pap: boolean }): Promise<Omit<NewCase, "typeValue"> & { severity: number }> {
  const type = await resolveCaseType(deps, tx, principal.organizationId, value.typeValue, null);
  const tlp = omitted.tlp && type?.defaultTlp != null ? type.defaultTlp : value.tlp;
  const pap = omitted.pap && type?.defaultPap != null ? type.defaultPap : value.pap;
  const severity = value.severity ?? type?.defaultSeverity ?? undefined;
  if (severity === undefined) throw severityRequired();
  // Nobody may create what they could not read back, the type's marking included.
  requireClearance(principal, tlp);
  const customFields = await prepareCustomFields(deps, tx, principal, { scope: "case", input: value.customFields, previous: {}, creating: true, typeFields: type?.customFields });
  // The shaped members alone, in a new object (V8 adds members to a spread's copy slowly).
  return { tlp, pap, severity, customFields };
}

/**
 * A change of a case: a new typeValue must name a live type (once types exist), and changed
 * custom fields are checked against the definitions that apply (hidden ones kept).
 */
export async function shapeCaseChange(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, before: Case, after: Case, customFieldsGiven: boolean): Promise<Case> {
  const type = await resolveCaseType(deps, tx, principal.organizationId, after.typeValue, before.typeValue);
  const customFields = customFieldsGiven
    ? await prepareCustomFields(deps, tx, principal, { scope: "case", input: after.customFields, previous: before.customFields, creating: false, typeFields: type?.customFields })
    : after.customFields;
  return { ...after, customFields };
}

/**
 * The type and custom fields a case promoted from an alert takes: the alert's typeValue when it
 * names a live case type (or the organization has none; otherwise the case has no type), and the
 * alert's values of the fields that apply to cases (all of them while cases have no definitions),
 * checked like a create's.
 */
export async function shapePromotedCase(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, alert: { typeValue: string | null; customFields: Record<string, unknown> }): Promise<Pick<Case, "typeValue" | "customFields">> {
  let typeValue = alert.typeValue;
  let type = null;
  if (typeValue !== null && (await hasCaseTypes(deps, tx, principal.organizationId))) {
    type = await caseTypeOf(deps, tx, principal.organizationId, typeValue);
    if (!type || type.archivedAt !== null) typeValue = null;
  }
  const caseKeys = new Set((await definitionsOf(deps, tx, principal.organizationId)).filter((d) => d.scopes.includes("case")).map((d) => d.key));
  const carried = caseKeys.size === 0 ? alert.customFields : Object.fromEntries(Object.entries(alert.customFields).filter(([key]) => caseKeys.has(key)));
  const customFields = await prepareCustomFields(deps, tx, principal, { scope: "case", input: carried, previous: {}, creating: true, typeFields: type?.customFields });
  return { typeValue, customFields };
}
