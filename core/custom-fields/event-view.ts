import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { redactCustomFields } from "./redact.js";
import type { CustomFieldDefinition } from "./types.js";
import { definitionsOf } from "./definitions.js";

type WithFields = { organizationId: string; customFields: Record<string, unknown> };

function hasCustomFields(record: unknown): record is WithFields {
  return typeof record === "object" && record !== null && "customFields" in record && "organizationId" in record;
}

/**
 * The record as an event (and its audit entry) carries it: a receiver is cleared for the event's
 * TLP and no more, so custom field values whose floor is above it are left out. Records without
 * custom fields pass unchanged, without a read.
 */
export async function eventViews<T>(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, tlp: number | null, records: readonly T[]): Promise<T[]> {
  const first = records.find(hasCustomFields) as WithFields | undefined;
  if (!first) return [...records];
  const definitions = await definitionsOf(deps, tx, first.organizationId);
  return records.map((r) => eventView(r, definitions, tlp));
}

/** eventViews for one record with definitions already read (bulk pages). */
export function eventView<T>(record: T, definitions: readonly CustomFieldDefinition[], tlp: number | null): T {
  return hasCustomFields(record) ? (redactCustomFields(record, definitions, tlp ?? 0) as T) : record;
}
