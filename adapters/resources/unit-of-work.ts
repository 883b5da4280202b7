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
import { organizationCounters } from "./organization-counters.js";
import { sessionRepository, sessionResource } from "./sessions.js";
import { signInThrottleRepository, signInThrottleResource } from "./sign-in-throttles.js";
import { taskRepository, taskResource } from "./tasks.js";
import { teamRepository, teamResource } from "./teams.js";
import { tlpAuditRepository, tlpAuditResource } from "./tlp-audit.js";
import { userRepository, userResource } from "./users.js";
import { attemptResource } from "./webhook-attempts.js";
import { deliveryResource } from "./webhook-deliveries.js";
import { webhookRepository, webhookResource } from "./webhooks.js";

/** What every repository of one unit is built from: the dialect, the unit's executor and its state. */
class UnitParts {
  constructor(
    readonly dialect: Dialect,
    readonly executor: Executor,
    readonly unit: UnitState,
  ) {}

  declared<R extends Parameters<typeof createRepository>[0]>(resource: R) {
    return createRepository(resource, this.dialect, this.executor, this.unit);
  }

  deliveries() {
    return this.declared(deliveryResource);
  }

  attempts() {
    return this.declared(attemptResource);
  }

  values() {
    return this.declared(customFieldValueResource);
  }

  groups() {
    return groupItems(this.declared(logGroupItemsResource), this.unit.giveWay);
  }

  counters() {
    return organizationCounters(this.dialect, this.executor, this.unit);
  }
}

/** How each repository of a unit is built, written once for every unit. */
const repositories: { [K in keyof UnitOfWork]: (parts: UnitParts) => UnitOfWork[K] } = {
  teams: (p) => teamRepository(p.declared(teamResource)),
  tasks: (p) => taskRepository(p.declared(taskResource), p.dialect, p.executor, p.unit, p.values()),
  observables: (p) => observableRepository(p.declared(observableResource), p.dialect, p.executor, p.unit, p.values()),
  comments: (p) => commentRepository(p.declared(commentResource)),
  events: (p) => eventRepository(p.declared(eventResource), p.groups(), p.dialect, p.counters().unsubscribed),
  webhooks: (p) => webhookRepository(p.declared(webhookResource), p.deliveries(), p.attempts(), p.dialect, p.executor, p.unit),
  auditSinks: (p) => auditSinkRepository(p.declared(auditSinkResource), p.declared(auditSinkCursorResource), p.dialect, p.executor, p.unit),
  deliveries: (p) => deliveryRepository(p.deliveries(), p.attempts(), p.groups(), p.dialect, p.executor, p.unit),
  organizations: (p) => organizationRepository(p.declared(organizationResource), p.dialect, p.executor, p.unit),
  users: (p) => userRepository(p.declared(userResource), p.dialect, p.executor, p.unit),
  apiKeys: (p) => apiKeyRepository(p.declared(apiKeyResource), p.dialect, p.executor, p.unit),
  sessions: (p) => sessionRepository(p.declared(sessionResource), p.dialect, p.executor, p.unit),
  signInThrottles: (p) => signInThrottleRepository(p.declared(signInThrottleResource)),
  alerts: (p) => alertRepository(p.declared(alertResource), p.dialect, p.executor, p.unit, p.values()),
  customFields: (p) => customFieldRepository(p.declared(customFieldResource), p.unit),
  caseTypes: (p) => caseTypeRepository(p.declared(caseTypeResource), p.unit),
  cases: (p) => caseRepository(p.declared(caseResource), p.dialect, p.executor, p.unit, p.values()),
  audit: (p) => auditRepository(p.declared(auditResource), p.declared(auditCheckpointResource), p.groups(), p.dialect, p.executor, p.unit),
  lifecycles: (p) => lifecycleRepository(p.declared(lifecycleResource), p.unit),
  statusHistory: (p) => statusHistoryRepository(p.declared(statusHistoryResource)),
  tlpAudit: (p) => tlpAuditRepository(p.declared(tlpAuditResource), p.groups(), p.dialect, p.executor, p.unit),
};

const partsOf = Symbol("casekit.unitParts");

/**
 * The unit of work's class: each repository is a getter on the prototype that builds it on first
 * read and keeps it as the unit's own property. A request's unit uses a few of the twenty-one
 * repositories, and a unit is made per request: defining a getter per repository on every unit
 * (closures and accessors per object) cost a create about as much as two of its statements.
 */
class Repositories {
  [partsOf]: UnitParts;

  constructor(parts: UnitParts) {
    this[partsOf] = parts;
  }
}
for (const key of Object.keys(repositories) as (keyof UnitOfWork)[]) {
  const build = repositories[key] as (parts: UnitParts) => unknown;
  Object.defineProperty(Repositories.prototype, key, {
    enumerable: true,
    get(this: Repositories) {
      const value = build(this[partsOf]);
      // Configurable, as the getter was: a Proxy around the unit (tests inject faults so) may
      // then answer with a wrapper of the repository instead of the repository itself.
      Object.defineProperty(this, key, { value, enumerable: true, configurable: true });
      return value;
    },
  });
}

/** The repositories of one unit, each built when the unit first uses it. */
export function createUnitOfWork(dialect: Dialect, executor: Executor, unit: UnitState): UnitOfWork {
  return new Repositories(new UnitParts(dialect, executor, unit)) as unknown as UnitOfWork;
}
