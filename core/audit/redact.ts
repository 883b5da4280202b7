import { withinClearance } from "../access/clearance.js";
import type { CaseKitDeps } from "../context.js";
import { definitionsOf } from "../custom-fields/definitions.js";
import { hiddenKeys } from "../custom-fields/floor.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { AuditEvent } from "./types.js";

/** What a redacted value reads as. */
export const redactedValue = "[redacted]";

/**
 * The event as a reader cleared to `clearance` may see it: the changes of a record whose marking
 * is above the clearance keep their paths but not their values, and so do the values of custom
 * fields whose TLP floor is above it (`hiddenFields`: core/custom-fields/redact.ts hiddenKeys).
 * Applied on every read path, so no value travels further than the record's marking allows.
 */
export function redactAuditEvent(event: AuditEvent, clearance: number, hiddenFields: ReadonlySet<string>): AuditEvent {
  const aboveClearance = event.tlp !== null && !withinClearance(event.tlp, clearance);
  if (!aboveClearance && hiddenFields.size === 0) return event;
  let redacted = false;
  const changes = event.changes.map((change) => {
    if (!aboveClearance && !hidesField(change.path, hiddenFields)) return change;
    redacted = true;
    return { path: change.path, before: change.before === null ? null : redactedValue, after: change.after === null ? null : redactedValue };
  });
  return redacted ? { ...event, changes } : event;
}

const fieldPrefix = "customFields.";

/** Whether `path` is a custom field's value (`customFields.<key>…`): only those can a field's floor hide. */
const isFieldPath = (path: string): boolean => path.startsWith(fieldPrefix);

/** Whether `path` is a custom field's value the reader may not see. */
function hidesField(path: string, hiddenFields: ReadonlySet<string>): boolean {
  if (hiddenFields.size === 0 || !isFieldPath(path)) return false;
  return hiddenFields.has(path.slice(fieldPrefix.length).split(".")[0]!);
}

const noneHidden: ReadonlySet<string> = new Set();

/**
 * A page of the organization's events as a reader cleared to `clearance` may see them: the one
 * redaction step of every read path (the list, the export, the stream, the syslog sinks), with the
 * custom fields' floors read through the definitions cache.
 */
export async function redactForReader(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, clearance: number, events: AuditEvent[]): Promise<AuditEvent[]> {
  if (events.length === 0) return events;
  // A page whose changes touch no custom field has nothing a floor could hide: no definitions are read.
  const touchesFields = events.some((event) => event.changes.some((change) => isFieldPath(change.path)));
  const hidden = touchesFields ? hiddenKeys(await definitionsOf(deps, tx, organizationId), clearance) : noneHidden;
  return events.map((event) => redactAuditEvent(event, clearance, hidden));
}
