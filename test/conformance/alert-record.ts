/**
 * A complete live alert record, for tests that write alerts through the storage port rather than
 * the alert service: each test overrides only the fields its subject is about.
 */
import type { Alert } from "../../core/alerts/types.js";

/** A live alert with `id` in `organizationId`, created, updated and last seen at `at`. */
export function alertRecord(id: string, organizationId: string, at: string, overrides: Partial<Alert> = {}): Alert {
  return {
    id,
    organizationId,
    title: "Impossible travel",
    description: null,
    severity: 2,
    tlp: 2,
    pap: 2,
    typeValue: null,
    source: "siem",
    sourceRef: null,
    statusValue: "new",
    assigneeId: null,
    tags: [],
    customFields: {},
    eventDate: null,
    occurrences: 1,
    lastSeenAt: at,
    caseId: null,
    createdAt: at,
    updatedAt: at,
    createdBy: null,
    deletedAt: null,
    deletedBy: null,
    ...overrides,
  };
}
