/**
 * Alert and task records written through the storage port, for tests whose subject is something
 * hanging off them (comments): they do not depend on the alert or task services.
 */
import type { Alert } from "../../core/alerts/types.js";
import { alertRecord } from "../conformance/alert-record.js";
import type { TestKit } from "./kit.js";

/** A live alert written through the port (the alert service is not this test's subject). */
export async function addAlert(t: Pick<TestKit, "kit" | "organizationId">, overrides: Partial<Alert> = {}): Promise<Alert> {
  const alert = alertRecord(t.kit.deps.ids.next("alert"), t.organizationId, t.kit.clock.now().toISOString(), overrides);
  await t.kit.storage.transaction((tx) => tx.alerts.insert(alert));
  return alert;
}
