/**
 * A case changing to a type of another lifecycle (core/lifecycles/case-lifecycle.ts). Its status
 * carries over when the new lifecycle has it: the request is then an ordinary change under the
 * new lifecycle (a `statusValue` beside it is a move the new lifecycle must offer). When the new
 * lifecycle lacks the status, the request must say where the case enters it: without
 * `statusValue` it is 409 status_not_in_lifecycle; with one, that status must be of the new
 * lifecycle (400 unknown_status) and not final (409 invalid_transition: a case is closed through
 * its lifecycle's transitions, never by a change of type), and the custom fields required on
 * entering it must be set (409 required_fields_unset). A closed case changes lifecycle only once
 * reopened (core/access/closed-records.ts).
 */
import { CaseKitError } from "../errors.js";
import type { CustomFieldDefinition } from "../custom-fields/types.js";
import { fieldsRequiredToEnter } from "../custom-fields/requirements.js";
import { blocked, statusOf } from "../lifecycles/engine.js";
import { customFieldGate, unmetGatesNow } from "../lifecycles/gates.js";
import type { Lifecycle } from "../lifecycles/types.js";
import type { Case } from "./types.js";

/**
 * Whether the change re-enters the case into `to` at a status of its choosing (the move then
 * needs no transition; its rules are checked here), or false when the lifecycle's own
 * transitions decide the move (same lifecycle, or the status carries over).
 */
export function checkReentry(from: Lifecycle, to: Lifecycle, before: Case, after: Case, statusGiven: boolean, fields: readonly CustomFieldDefinition[], hidden: ReadonlySet<string>): boolean {
  if (from.key === to.key || statusOf(to, before.statusValue)) return false;
  if (!statusGiven) {
    const message = `the case is ${before.statusValue}, which the ${to.key} lifecycle of type ${after.typeValue} does not have: give the statusValue it enters it in (${to.statuses.filter((s) => !s.final).map((s) => s.key).join(", ")})`;
    throw new CaseKitError("status_not_in_lifecycle", `typeValue: ${message}`, [{ path: "typeValue", message }]);
  }
  if (statusOf(to, after.statusValue)!.final) {
    throw new CaseKitError("invalid_transition", `A case enters the ${to.key} lifecycle of its new type in a status that is not final, not ${after.statusValue}: close it through its transitions afterwards`);
  }
  const unmet = unmetGatesNow(fieldsRequiredToEnter(fields, { to: after.statusValue, closing: false }).map(customFieldGate), after);
  if (unmet.length > 0) throw blocked(to, after.statusValue, after.statusValue, unmet, fields, hidden);
  return true;
}
