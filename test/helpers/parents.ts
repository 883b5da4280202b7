/**
 * Alert and task records written through the storage port, for tests whose subject is something
 * hanging off them (comments): they do not depend on the alert or task services.
 */
import type { Alert } from "../../core/alerts/types.js";
import type { TestKit } from "./kit.js";

/** A live alert written through the port (the alert service is not this test's subject). */
export async function addAlert(t: Pick<TestKit, "kit" | "organizationId">, overrides: Partial<Alert> = {}): Promise<Alert> {
  const at = t.kit.clock.now().toISOString();
  const alert: Alert = {
    id: t.kit.deps.ids.next("alert"),
    organizationId: t.organizationId,
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
  await t.kit.storage.transaction((tx) => tx.alerts.insert(alert));
  return alert;
}
