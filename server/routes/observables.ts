import {
  observableCreateSchema,
  observableCreatedSchema,
  observableListQuerySchema,
  observableListSchema,
  observableParentListQuerySchema,
  observableSchema,
  observableUpdateSchema,
} from "../../core/index.js";
import { defineApiRoute } from "../route.js";

const dedupeNote =
  "A value the case already has (same dataType and normalised data) answers 200 with that record and `deduplicated: true`: `ioc` and `sighted` are OR-ed, tags added, a missing message and unset custom fields filled in; tlp and pap stay as they were.";

const fieldsNote =
  "`customFields` holds the organization's observable custom fields (`GET /custom-fields/schema?scope=observable`): once it defines any, only defined keys, each value checked (400 `validation_failed` at `customFields.<key>`); values above the caller's clearance are left out of every answer.";
const filterNote = "`cf.<key>=<value>` (up to three) keeps the observables whose filterable custom field holds the value.";

export const observableRoutes = [
  defineApiRoute({
    method: "POST",
    path: "/cases/:caseId/observables",
    operationId: "createCaseObservable",
    tag: "Observables",
    summary: "Add an observable to a case",
    description: `${dedupeNote} \`tlp\` defaults to the case's; nobody creates one above their own clearance. ${fieldsNote}`,
    scope: "observables:write",
    body: observableCreateSchema,
    response: observableCreatedSchema,
    handle: ({ kit, principal, params, body }) => kit.observables.create(principal, { kind: "case", id: params.caseId ?? "" }, body),
  }),
  defineApiRoute({
    method: "GET",
    path: "/cases/:caseId/observables",
    operationId: "listCaseObservables",
    tag: "Observables",
    summary: "List a case's observables",
    description: "Newest first, keyset-paged; filters as on `GET /observables`, `cf.<key>` too. Observables above the caller's TLP clearance are left out.",
    scope: "observables:read",
    query: observableParentListQuerySchema,
    response: observableListSchema,
    handle: ({ kit, principal, params, query }) => kit.observables.listOf(principal, { kind: "case", id: params.caseId ?? "" }, query),
  }),
  defineApiRoute({
    method: "POST",
    path: "/alerts/:alertId/observables",
    operationId: "createAlertObservable",
    tag: "Observables",
    summary: "Add an observable to an alert",
    description: `${dedupeNote.replace("the case already has", "the alert already has")} \`tlp\` defaults to the alert's; nobody creates one above their own clearance. A deleted alert is 404. ${fieldsNote}`,
    scope: "observables:write",
    body: observableCreateSchema,
    response: observableCreatedSchema,
    handle: ({ kit, principal, params, body }) => kit.observables.create(principal, { kind: "alert", id: params.alertId ?? "" }, body),
  }),
  defineApiRoute({
    method: "GET",
    path: "/alerts/:alertId/observables",
    operationId: "listAlertObservables",
    tag: "Observables",
    summary: "List an alert's observables",
    description: "Newest first, keyset-paged; filters as on `GET /observables`, `cf.<key>` too. Observables above the caller's TLP clearance are left out; a deleted alert is 404.",
    scope: "observables:read",
    query: observableParentListQuerySchema,
    response: observableListSchema,
    handle: ({ kit, principal, params, query }) => kit.observables.listOf(principal, { kind: "alert", id: params.alertId ?? "" }, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/observables",
    operationId: "listObservables",
    tag: "Observables",
    summary: "List observables across the organization",
    description:
      "\"Where else have we seen this?\": `data` matches the stored value after the same normalisation as on create. Newest first, keyset-paged; a repeated parameter means any of its values. " +
      filterNote +
      " Observables above the caller's clearance, or whose case or alert is, are left out, and so are those of deleted alerts.",
    scope: "observables:read",
    query: observableListQuerySchema,
    response: observableListSchema,
    handle: ({ kit, principal, query }) => kit.observables.list(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/observables/:id",
    operationId: "getObservable",
    tag: "Observables",
    summary: "Get an observable",
    description: "404 for an unknown, deleted or other organization's observable alike; 403 when it or its parent is above the caller's TLP clearance.",
    scope: "observables:read",
    response: observableSchema,
    handle: ({ kit, principal, params }) => kit.observables.get(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "PATCH",
    path: "/observables/:id",
    operationId: "updateObservable",
    tag: "Observables",
    summary: "Change an observable",
    description: "Send only the fields to change (tlp, pap, ioc, sighted, tags, message, customFields; `message: null` clears it; `customFields` replaces the observable's values). dataType and data never change: delete and add instead. " +
      fieldsNote,
    scope: "observables:write",
    body: observableUpdateSchema,
    response: observableSchema,
    handle: ({ kit, principal, params, body }) => kit.observables.update(principal, params.id ?? "", body),
  }),
  defineApiRoute({
    method: "DELETE",
    path: "/observables/:id",
    operationId: "deleteObservable",
    tag: "Observables",
    summary: "Delete an observable",
    description: "Soft delete: answers the record with `deletedAt` and `deletedBy` set; it then leaves every read and list, and the value may be added to the parent again.",
    scope: "observables:write",
    response: observableSchema,
    handle: ({ kit, principal, params }) => kit.observables.delete(principal, params.id ?? ""),
  }),
];
