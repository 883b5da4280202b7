/**
 * The repositories of one unit of work, the same for every dialect: each declared resource's
 * generic repository (adapters/declare/repository.ts) behind the port's interface, with the few
 * queries that are honestly special written once beside its declaration. A dialect brings only
 * its Dialect and the unit's Executor.
 */
import type { UnitOfWork } from "../../core/ports/storage.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { createRepository } from "../declare/repository.js";
import { groupItems } from "../shared/group-items.js";
import type { UnitState } from "../shared/unit-state.js";
import { alertRepository, alertResource } from "./alerts.js";
import { apiKeyRepository, apiKeyResource } from "./api-keys.js";
import { auditRepository, auditResource } from "./audit.js";
import { auditCheckpointResource } from "./audit-checkpoints.js";
import { auditSinkCursorResource, auditSinkRepository, auditSinkResource } from "./audit-sinks.js";
import { caseRepository, caseResource } from "./cases.js";
import { caseTypeRepository, caseTypeResource } from "./case-types.js";
import { customFieldValueResource } from "./custom-field-values.js";
import { customFieldRepository, customFieldResource } from "./custom-fields.js";
import { commentRepository, commentResource } from "./comments.js";
import { lifecycleRepository, lifecycleResource } from "./lifecycles.js";
import { statusHistoryRepository, statusHistoryResource } from "./status-history.js";
import { deliveryRepository } from "./deliveries.js";
import { eventRepository, eventResource } from "./events.js";
import { logGroupItemsResource } from "./log-group-items.js";
import { observableRepository, observableResource } from "./observables.js";
import { organizationRepository, organizationResource } from "./organizations.js";
import { sessionRepository, sessionResource } from "./sessions.js";
import { signInThrottleRepository, signInThrottleResource } from "./sign-in-throttles.js";
import { taskRepository, taskResource } from "./tasks.js";
import { teamRepository, teamResource } from "./teams.js";
import { tlpAuditRepository, tlpAuditResource } from "./tlp-audit.js";
import { userRepository, userResource } from "./users.js";
import { attemptResource } from "./webhook-attempts.js";
import { deliveryResource } from "./webhook-deliveries.js";
import { webhookRepository, webhookResource } from "./webhooks.js";

/** The repositories of one unit, each built when the unit first uses it. */
export function createUnitOfWork(dialect: Dialect, executor: Executor, unit: UnitState): UnitOfWork {
  const declared = <R extends Parameters<typeof createRepository>[0]>(resource: R) => createRepository(resource, dialect, executor, unit);
  const deliveries = () => declared(deliveryResource);
  const attempts = () => declared(attemptResource);
  const values = () => declared(customFieldValueResource);
  const groups = () => groupItems(declared(logGroupItemsResource));
  return lazily<UnitOfWork>({
    teams: () => teamRepository(declared(teamResource)),
    tasks: () => taskRepository(declared(taskResource), dialect, executor, unit, values()),
    observables: () => observableRepository(declared(observableResource), dialect, executor, unit, values()),
    comments: () => commentRepository(declared(commentResource)),
    events: () => eventRepository(declared(eventResource), groups(), dialect),
    webhooks: () => webhookRepository(declared(webhookResource), deliveries(), attempts(), dialect, executor, unit),
    auditSinks: () => auditSinkRepository(declared(auditSinkResource), declared(auditSinkCursorResource), dialect, executor, unit),
    deliveries: () => deliveryRepository(deliveries(), attempts(), groups(), dialect, executor, unit),
    organizations: () => organizationRepository(declared(organizationResource), dialect, executor, unit),
    users: () => userRepository(declared(userResource), dialect, executor, unit),
    apiKeys: () => apiKeyRepository(declared(apiKeyResource), dialect, executor, unit),
    sessions: () => sessionRepository(declared(sessionResource), dialect, executor, unit),
    signInThrottles: () => signInThrottleRepository(declared(signInThrottleResource)),
    alerts: () => alertRepository(declared(alertResource), dialect, executor, unit, values()),
    customFields: () => customFieldRepository(declared(customFieldResource), unit),
    caseTypes: () => caseTypeRepository(declared(caseTypeResource), unit),
    cases: () => caseRepository(declared(caseResource), dialect, executor, unit, values()),
    audit: () => auditRepository(declared(auditResource), declared(auditCheckpointResource), groups(), dialect, executor, unit),
    lifecycles: () => lifecycleRepository(declared(lifecycleResource), unit),
    statusHistory: () => statusHistoryRepository(declared(statusHistoryResource)),
    tlpAudit: () => tlpAuditRepository(declared(tlpAuditResource), groups(), dialect, executor, unit),
  });
}

/**
 * An object whose members are built on first read and kept: a request's unit uses two or three
 * of sixteen repositories, so building all of them per unit was most of an empty unit's cost.
 */
function lazily<T extends object>(builders: { [K in keyof T]: () => T[K] }): T {
  const built = {} as T;
  for (const key of Object.keys(builders) as (keyof T & string)[]) {
    Object.defineProperty(built, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = builders[key]();
        Object.defineProperty(built, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return built;
}
