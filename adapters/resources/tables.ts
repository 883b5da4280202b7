/**
 * Every declared table, named as the schema modules export it, in an order where a table comes
 * after the tables its foreign keys point at. Each dialect's schema.ts builds its drizzle tables
 * from this one list (`tablesOf`), so adding a resource here adds it to both databases.
 */
import { alertResource } from "./alerts.js";
import { apiKeyResource } from "./api-keys.js";
import { auditResource } from "./audit.js";
import { auditCheckpointResource } from "./audit-checkpoints.js";
import { caseResource } from "./cases.js";
import { caseTypeResource } from "./case-types.js";
import { customFieldValueResource } from "./custom-field-values.js";
import { customFieldResource } from "./custom-fields.js";
import { commentResource } from "./comments.js";
import { lifecycleResource } from "./lifecycles.js";
import { statusHistoryResource } from "./status-history.js";
import { eventResource } from "./events.js";
import { logGroupItemsResource } from "./log-group-items.js";
import { observableResource } from "./observables.js";
import { organizationResource } from "./organizations.js";
import { sessionResource } from "./sessions.js";
import { signInThrottleResource } from "./sign-in-throttles.js";
import { taskResource } from "./tasks.js";
import { teamResource } from "./teams.js";
import { tlpAuditResource } from "./tlp-audit.js";
import { userResource } from "./users.js";
import { attemptResource } from "./webhook-attempts.js";
import { deliveryResource } from "./webhook-deliveries.js";
import { webhookResource } from "./webhooks.js";
import { auditSinkCursorResource, auditSinkResource } from "./audit-sinks.js";

export const declaredTables = {
  organizations: organizationResource,
  users: userResource,
  apiKeys: apiKeyResource,
  cases: caseResource,
  auditLog: auditResource,
  auditCheckpoints: auditCheckpointResource,
  events: eventResource,
  teams: teamResource,
  tlpAuditLog: tlpAuditResource,
  sessions: sessionResource,
  signInThrottles: signInThrottleResource,
  alerts: alertResource,
  tasks: taskResource,
  observables: observableResource,
  comments: commentResource,
  webhooks: webhookResource,
  webhookDeliveries: deliveryResource,
  webhookAttempts: attemptResource,
  lifecycles: lifecycleResource,
  statusHistory: statusHistoryResource,
  customFields: customFieldResource,
  caseTypes: caseTypeResource,
  customFieldValues: customFieldValueResource,
  logGroupItems: logGroupItemsResource,
  auditSinks: auditSinkResource,
  auditSinkCursors: auditSinkCursorResource,
} as const;
