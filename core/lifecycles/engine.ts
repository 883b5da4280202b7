/**
 * The one place that decides a status move, for every write path (PATCH, POST …/transitions,
 * bulk): the move must be a transition of the lifecycle, the caller must hold one of its roles,
 * and its gates must hold. Staying in the same status is no move and always allowed.
 */
import type { Principal } from "../access/principal.js";
import { CaseKitError } from "../errors.js";
import type { CustomFieldDefinition } from "../custom-fields/types.js";
import { fieldsRequiredToEnter } from "../custom-fields/requirements.js";
import { concealGates, hiddenFieldGate } from "../custom-fields/floor.js";
import type { GateInput } from "./gates.js";
import { customFieldGate, mandatoryTasksGate, unmetGates, unmetGatesNow } from "./gates.js";
import type { Lifecycle, LifecycleStatus, LifecycleTransition } from "./types.js";

export function statusOf(lifecycle: Lifecycle, key: string): LifecycleStatus | undefined {
  return lifecycle.statuses.find((status) => status.key === key);
}

/**
 * The status `key` names, or 400 unknown_status at `path` listing the lifecycle's keys. Not
 * validation_failed: the document cannot list an organization's statuses, so a key of the right
 * shape is a well-formed request that names no status here (as an id naming no record is).
 */
export function requireStatus(lifecycle: Lifecycle, key: string, path: string): LifecycleStatus {
  const status = statusOf(lifecycle, key);
  if (!status) throw unknownStatus(lifecycle, key, path);
  return status;
}

export function unknownStatus(lifecycle: Lifecycle, key: string, path: string): CaseKitError {
  const message = `${key} is not a status of the organization's ${lifecycle.entity} lifecycle (${lifecycle.statuses.map((s) => s.key).join(", ")})`;
  return new CaseKitError("unknown_status", `${path}: ${message}`, [{ path, message }]);
}

/** A status a new record may start in (new or in_progress category); another is 409 invalid_transition. */
export function requireInitial(lifecycle: Lifecycle, key: string, path: string): LifecycleStatus {
  const status = requireStatus(lifecycle, key, path);
  if (status.category !== "new" && status.category !== "in_progress") {
    throw new CaseKitError("invalid_transition", `A new ${lifecycle.entity} starts in one of ${initialStatuses(lifecycle).join(", ")}, not ${key}`);
  }
  return status;
}

/** Whether a record in status `key` is done (an unknown key, from a removed status, counts as not). */
export function isFinal(lifecycle: Lifecycle, key: string): boolean {
  return statusOf(lifecycle, key)?.final ?? false;
}

export function isCategory(lifecycle: Lifecycle, key: string, category: LifecycleStatus["category"]): boolean {
  return statusOf(lifecycle, key)?.category === category;
}

/** The statuses a record may be created in: those of the `new` and `in_progress` categories. */
export function initialStatuses(lifecycle: Lifecycle): string[] {
  return lifecycle.statuses.filter((status) => status.category === "new" || status.category === "in_progress").map((status) => status.key);
}

/** The first status of the `new` category: where a record starts when nothing else is said. */
export function firstNewStatus(lifecycle: Lifecycle): string {
  const first = lifecycle.statuses.find((status) => status.category === "new");
  if (!first) throw new Error(`The ${lifecycle.entity} lifecycle has no status of the new category`);
  return first.key;
}

/** Whether the caller holds one of the transition's roles (`assignee`: the record's stored assignee). */
export function mayTake(principal: Principal, transition: LifecycleTransition, stored: { assigneeId: string | null }): boolean {
  if (!transition.roles || transition.roles.length === 0) return true;
  return transition.roles.some((role) => (role === "assignee" ? stored.assigneeId !== null && stored.assigneeId === principal.userId : role === principal.role));
}

export interface MoveContext extends Omit<GateInput, "record"> {
  principal: Principal;
  /** The record as stored before the move (its assignee decides the `assignee` role). */
  stored: { assigneeId: string | null };
  /** The custom field definitions that apply to the record: their requirements are gates too. */
  fields: readonly CustomFieldDefinition[];
  /** Keys of the fields above the caller's clearance: their gates are named as floor.ts says. */
  hidden: ReadonlySet<string>;
}

/**
 * Every gate of one move: the transition's `requires`, then the custom fields required to enter
 * `to` (on close, on entering it) as `field:customFields.<key>`, each once. The listing
 * (`transitionOptions`) and every refusal (`checkMove`, `bulkMoveRefusal`) ask this alone, so
 * what GET …/transitions lists is exactly what a move is refused for.
 */
export function gatesOfMove(lifecycle: Lifecycle, transition: LifecycleTransition, from: string, fields: readonly CustomFieldDefinition[]): string[] {
  const closing = isFinal(lifecycle, transition.to) && !isFinal(lifecycle, from);
  const required = fieldsRequiredToEnter(fields, { to: transition.to, closing }).map(customFieldGate);
  return [...new Set([...(transition.requires ?? []), ...required])];
}

export interface TransitionOption {
  to: string;
  label: string;
  category: LifecycleStatus["category"];
  final: boolean;
  /** Gates that do not hold now; empty when the transition can be taken as it is. */
  unmet: string[];
}

/** The transitions out of `from` the caller may take, one per target, each with its unmet gates. */
export async function transitionOptions(lifecycle: Lifecycle, from: string, record: object, context: MoveContext): Promise<TransitionOption[]> {
  const targets = [...new Set(lifecycle.transitions.filter((t) => t.from.includes(from) && t.to !== from).map((t) => t.to))];
  const options: TransitionOption[] = [];
  for (const to of targets) {
    const unmet = await bestUnmet(lifecycle, from, to, record, context);
    const status = statusOf(lifecycle, to);
    if (unmet && status) options.push({ to, label: status.label, category: status.category, final: status.final, unmet: concealGates(unmet, context.hidden) });
  }
  return options;
}

/**
 * Checks the move of a record from `from` to `to`, `after` being the record as it would be left.
 * invalid_transition (409) when no transition leads there for this caller; transition_blocked
 * (409, with `unmet`) when gates do not hold (mandatory_tasks_open when that gate alone).
 */
export async function checkMove(lifecycle: Lifecycle, from: string, to: string, after: object, context: MoveContext & { beforeGates?: () => void }): Promise<void> {
  if (from !== to) {
    const leads = lifecycle.transitions.filter((t) => t.from.includes(from) && t.to === to);
    if (!leads.some((t) => mayTake(context.principal, t, context.stored))) {
      throw new CaseKitError("invalid_transition", leads.length > 0 ? `You may not move a ${lifecycle.entity} from ${from} to ${to}` : `A ${from} ${lifecycle.entity} cannot become ${to}`);
    }
  }
  // What the caller checks between the move and its gates (a closed record's fields).
  context.beforeGates?.();
  if (from === to) return;
  const unmet = (await bestUnmet(lifecycle, from, to, after, context)) ?? [];
  if (unmet.length > 0) throw blocked(lifecycle, from, to, unmet, context.fields, context.hidden);
}

/**
 * The refusal for gates that do not hold: mandatory_tasks_open when that gate alone,
 * required_fields_unset (each field by path) when only fields the definitions require are unset,
 * transition_blocked otherwise; all three carry `unmet`, the list GET …/transitions gives. A gate
 * on a field in `hidden` (above the caller's clearance) is named as floor.ts says, never by its
 * key or path: such a refusal is transition_blocked.
 */
export function blocked(lifecycle: Lifecycle, from: string, to: string, unmet: string[], fields: readonly CustomFieldDefinition[], hidden: ReadonlySet<string>): CaseKitError {
  const shown = concealGates(unmet, hidden);
  if (shown.includes(hiddenFieldGate)) {
    return new CaseKitError("transition_blocked", `Moving the ${lifecycle.entity} to ${to} needs: ${shown.join(", ")}`, undefined, { unmet: shown });
  }
  if (unmet.length === 1 && unmet[0] === mandatoryTasksGate) {
    return new CaseKitError("mandatory_tasks_open", "Complete or cancel the case's mandatory tasks before closing it", undefined, { unmet });
  }
  const closing = isFinal(lifecycle, to) && !isFinal(lifecycle, from);
  const required = fieldsRequiredToEnter(fields, { to, closing });
  const requiredGates = new Map(required.map((key) => [customFieldGate(key), key]));
  if (unmet.every((gate) => requiredGates.has(gate))) {
    const keys = unmet.map((gate) => requiredGates.get(gate)!);
    const message = closing ? "must be set before closing" : `must be set before entering ${to}`;
    return new CaseKitError("required_fields_unset", `Set ${keys.join(", ")} first`, keys.map((key) => ({ path: `customFields.${key}`, message })), { unmet });
  }
  return new CaseKitError("transition_blocked", `Moving the ${lifecycle.entity} to ${to} needs: ${unmet.join(", ")}`, undefined, { unmet });
}

/**
 * Of the transitions from `from` to `to` the caller may take, the fewest unmet gates (the first
 * such transition's); undefined when the caller may take none.
 */
async function bestUnmet(lifecycle: Lifecycle, from: string, to: string, record: object, context: MoveContext): Promise<string[] | undefined> {
  let best: string[] | undefined;
  for (const transition of lifecycle.transitions) {
    if (transition.to !== to || !transition.from.includes(from) || !mayTake(context.principal, transition, context.stored)) continue;
    const unmet = await unmetGates(gatesOfMove(lifecycle, transition, from, context.fields), { ...context, record });
    if (best === undefined || unmet.length < best.length) best = unmet;
    if (unmet.length === 0) break;
  }
  return best;
}

/**
 * `checkMove` for a bulk page, record by record and without awaiting: the code a record is skipped
 * with (invalid_transition, transition_blocked), or null when it may move. A bulk gives no reason,
 * so a transition that requires one is blocked there.
 */
export function bulkMoveRefusal(
  lifecycle: Lifecycle,
  from: string,
  to: string,
  after: object,
  principal: Principal,
  stored: { assigneeId: string | null },
  fields: readonly CustomFieldDefinition[],
): "invalid_transition" | "transition_blocked" | null {
  if (from === to) return null;
  const taken = lifecycle.transitions.filter((t) => t.from.includes(from) && t.to === to && mayTake(principal, t, stored));
  if (taken.length === 0) return "invalid_transition";
  return taken.some((t) => unmetGatesNow(gatesOfMove(lifecycle, t, from, fields), after).length === 0) ? null : "transition_blocked";
}
