/**
 * A complete case record, for tests (and test processes) that write cases through the storage
 * port rather than the case service: each overrides only the fields its subject is about.
 */
import type { Case } from "../../core/cases/types.js";

/** Case number `number` of `organizationId`, open and untouched, created and updated at `at`. */
export function caseRecord(id: string, organizationId: string, number: number, at: string, overrides: Partial<Case> = {}): Case {
  return {
    id,
    organizationId,
    number,
    title: `Case ${number}`,
    severity: 2,
    description: null,
    tlp: 2,
    pap: 2,
    statusValue: "new",
    typeValue: null,
    assigneeId: null,
    clientId: null,
    source: null,
    sourceRef: null,
    tags: [],
    teams: [],
    organizations: [],
    customFields: {},
    closedAt: null,
    createdAt: at,
    updatedAt: at,
    createdBy: null,
    ...overrides,
  };
}
