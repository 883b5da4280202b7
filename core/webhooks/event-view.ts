import { withinClearance } from "../access/clearance.js";
import type { Principal } from "../access/principal.js";
import type { Scope } from "../access/scopes.js";
import { redactAuditEvent } from "../audit/redact.js";
import type { AuditEvent } from "../audit/types.js";
import type { DomainEvent } from "../events/types.js";
import { auditEventResourceType } from "./audit-outbox.js";

const testEvent = "webhook.test";

/** The scope that reads each kind of record through the API; null: any key may (the organization). */
const readScopes: Readonly<Record<string, Scope | null>> = {
  case: "cases:read",
  alert: "alerts:read",
  task: "tasks:read",
  observable: "observables:read",
  user: "users:read",
  team: "users:read",
  key: "keys:write",
  webhook: "webhooks:read",
  webhook_delivery: "webhooks:read",
  organization: null,
  [auditEventResourceType]: "audit:read",
};

/** A comment is read with its parent's scope. */
const commentScopes: Readonly<Record<string, Scope>> = { case: "cases:read", alert: "alerts:read", task: "tasks:read" };

/** The scope that reads the event's record; a kind this table does not know needs org:admin (fail closed). */
function readScopeOf(event: DomainEvent): Scope | null {
  if (event.resourceType === "comment") return commentScopes[String(event.payload.parentType)] ?? "org:admin";
  return Object.hasOwn(readScopes, event.resourceType) ? readScopes[event.resourceType]! : "org:admin";
}

/**
 * Whether `principal` may read the record an event carries: its effective TLP (the event's `tlp`,
 * core/tlp/effective.ts) within the clearance, and the scope that reads such records held. A
 * subscription's own test event is always its own to read.
 */
export function mayRead(event: DomainEvent, principal: Principal): boolean {
  if (event.name === testEvent) return true;
  const scope = readScopeOf(event);
  // An audit event is read as the audit API reads it: with audit:read, its values redacted above the clearance (auditView).
  if (event.resourceType === auditEventResourceType) return principal.scopes.has(scope!);
  return (event.tlp === null || withinClearance(event.tlp, principal.tlpClearance)) && (scope === null || principal.scopes.has(scope));
}

/**
 * The record as a subscription made as `principal` (null: one that may deliver nothing now) sees
 * it: the whole payload, or only its id, kind and TLP. Filters match against this view too, so a
 * filter on a field the subscription may not read never tells whether it matched.
 */
export function eventData(event: DomainEvent, principal: Principal | null, hiddenFields: ReadonlySet<string> = noHiddenFields): Record<string, unknown> {
  if (principal && mayRead(event, principal)) return event.resourceType === auditEventResourceType ? auditView(event, principal, hiddenFields) : event.payload;
  return { id: event.resourceId, resourceType: event.resourceType, tlp: event.tlp, redacted: true };
}

const noHiddenFields: ReadonlySet<string> = new Set();

/**
 * An audit event as `principal` may see it (core/audit/redact.ts, the audit API's rule): the
 * changes of a record above its clearance, and of custom fields whose TLP floor is above it
 * (`hiddenFields`), keep their paths but not their values. Fan-out matches filters without the
 * custom fields (it passes none hidden): a filter cannot reach into `changes` (a list never matches).
 */
function auditView(event: DomainEvent, principal: Principal, hiddenFields: ReadonlySet<string>): Record<string, unknown> {
  return redactAuditEvent(event.payload as unknown as AuditEvent, principal.tlpClearance, hiddenFields) as unknown as Record<string, unknown>;
}

/**
 * The delivered body (Standard Webhooks' `{ type, timestamp, data }`). `hiddenFields`: the custom
 * fields whose values `principal` may not read (an audit event's view needs them).
 */
export function deliveryBody(event: DomainEvent, principal: Principal, hiddenFields: ReadonlySet<string>): Record<string, unknown> {
  return {
    type: event.name,
    timestamp: event.occurredAt,
    eventId: event.id,
    ...(event.bulkRequestId ? { bulkRequestId: event.bulkRequestId } : {}),
    data: eventData(event, principal, hiddenFields),
  };
}
