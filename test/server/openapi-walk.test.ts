/**
 * The OpenAPI document, proven true. For every operation of the document the app serves:
 *
 * 1. a real request that succeeds (records seeded through the API itself, bodies from the sample
 *    table below) answers a documented 2xx whose body validates against the declared schema;
 * 2. every documented error status is provoked, and its body validates against the declared
 *    problem+json schema. Generic provocations cover 400, 401, 403, 404, 413, 415, 429 and 500;
 *    the 409 (and 503) cases are in `provocations`; what cannot be provoked is in `notProvoked`,
 *    each with its reason.
 *
 * The walk is driven by the document, not the route table: a new operation without a sample, or
 * a new documented status without a provocation or a reason, fails this test.
 *
 * OpenAPI 3.1 schemas are JSON Schema 2020-12, so ajv's 2020 build checks them as they are.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes, createCaseKit, defaultLifecycles, rateLimitFloors } from "../../core/index.js";
import type { Scope, Storage } from "../../core/index.js";
import { apiBasePath, createCaseKitApp } from "../../server/index.js";
import { addKey } from "../helpers/kit.js";
import { bearer, inProcess } from "./http.js";
import type { Answer, HeaderList, Transport } from "./http.js";
import { makeWorld, userWithKey } from "./world.js";
import type { World } from "./world.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { componentsResourceId, retarget } from "../helpers/openapi-refs.js";

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON document under test

/** One request of the walk: path parameters, query, body. */
interface Call {
  params?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: unknown;
}

/** What a sample may use: the API as the organization's admin, and the world behind it. */
interface Seed {
  w: World;
  /** Sends a request as the admin and returns the body; fails the test on anything but 2xx. */
  api(method: string, path: string, body?: unknown): Promise<Json>;
  newCase(): Promise<string>;
  newAlert(): Promise<string>;
  newTask(): Promise<string>;
  newWebhook(): Promise<string>;
}

let counter = 0;
const unique = (prefix: string): string => `${prefix}-${++counter}`;

// ---------------------------------------------------------------------------------------------
// Success: one sample per operation ("METHOD /path" as the document writes it).
// ---------------------------------------------------------------------------------------------

const samples: Record<string, (s: Seed) => Promise<Call>> = {
  "POST /cases": async () => ({ body: { title: "Walked case", severity: 3, tags: [{ name: "walk" }] } }),
  "GET /cases": async (s) => (await s.newCase(), { query: { severity: "3", limit: "5" } }),
  "GET /cases/{id}": async (s) => ({ params: { id: await s.newCase() } }),
  "PATCH /cases/{id}": async (s) => ({ params: { id: await s.newCase() }, body: { title: "Renamed", statusValue: "in_progress" } }),

  "POST /alerts": async () => ({ body: { title: "Walked alert", severity: 2, source: "walk", sourceRef: unique("ref"), observables: [{ dataType: "ip", data: "192.0.2.1" }] } }),
  "GET /alerts": async (s) => (await s.newAlert(), { query: { source: "walk" } }),
  "GET /alerts/{id}": async (s) => ({ params: { id: await s.newAlert() } }),
  "PATCH /alerts/{id}": async (s) => ({ params: { id: await s.newAlert() }, body: { statusValue: "acknowledged" } }),
  "DELETE /alerts/{id}": async (s) => ({ params: { id: await s.newAlert() } }),
  "POST /alerts/{id}/restore": async (s) => {
    const id = await s.newAlert();
    await s.api("DELETE", `/alerts/${id}`);
    return { params: { id } };
  },
  "POST /alerts/{id}/promote": async (s) => ({ params: { id: await s.newAlert() }, body: { severity: 4 } }),
  "POST /alerts/{id}/merge": async (s) => ({ params: { id: await s.newAlert() }, body: { caseId: await s.newCase() } }),
  "POST /bulk/alerts/assign": async (s) => ({ body: { ids: [await s.newAlert(), await s.newAlert()], assigneeId: s.w.admin.userId } }),
  "GET /metrics/alerts/source": async (s) => (await s.newAlert(), { query: { statusValue: "new" } }),

  "POST /cases/{caseId}/tasks": async (s) => ({ params: { caseId: await s.newCase() }, body: { title: "Walked task", mandatory: true } }),
  "GET /cases/{caseId}/tasks": async (s) => {
    const caseId = await s.newCase();
    await s.api("POST", `/cases/${caseId}/tasks`, { title: "Listed task" });
    return { params: { caseId } };
  },
  "GET /tasks": async (s) => (await s.newTask(), { query: { limit: "10" } }),
  "GET /tasks/{id}": async (s) => ({ params: { id: await s.newTask() } }),
  "PATCH /tasks/{id}": async (s) => ({ params: { id: await s.newTask() }, body: { status: "in_progress" } }),
  "DELETE /tasks/{id}": async (s) => ({ params: { id: await s.newTask() } }),
  "POST /bulk/tasks": async (s) => ({ body: { ids: [await s.newTask(), await s.newTask()], fields: { status: "in_progress" } } }),
  "DELETE /bulk/tasks": async (s) => ({ body: { ids: [await s.newTask()] } }),

  "POST /cases/{caseId}/observables": async (s) => ({ params: { caseId: await s.newCase() }, body: { dataType: "domain", data: "evil.example", ioc: true } }),
  "GET /cases/{caseId}/observables": async (s) => {
    const caseId = await s.newCase();
    await s.api("POST", `/cases/${caseId}/observables`, { dataType: "ip", data: "198.51.100.7" });
    return { params: { caseId } };
  },
  "POST /alerts/{alertId}/observables": async (s) => ({ params: { alertId: await s.newAlert() }, body: { dataType: "ip", data: "203.0.113.9" } }),
  "GET /alerts/{alertId}/observables": async (s) => ({ params: { alertId: await s.newAlert() } }),
  "GET /observables": async (s) => (await s.newAlert(), { query: { dataType: "ip", data: "192.0.2.1" } }),
  "GET /observables/{id}": async (s) => ({ params: { id: await newObservable(s) } }),
  "PATCH /observables/{id}": async (s) => ({ params: { id: await newObservable(s) }, body: { sighted: true, message: "seen again" } }),
  "DELETE /observables/{id}": async (s) => ({ params: { id: await newObservable(s) } }),

  "POST /cases/{caseId}/comments": async (s) => ({ params: { caseId: await s.newCase() }, body: { body: "A walked comment" } }),
  "GET /cases/{caseId}/comments": async (s) => {
    const caseId = await s.newCase();
    await s.api("POST", `/cases/${caseId}/comments`, { body: "Listed" });
    return { params: { caseId } };
  },
  "POST /alerts/{alertId}/comments": async (s) => ({ params: { alertId: await s.newAlert() }, body: { body: "On an alert" } }),
  "GET /alerts/{alertId}/comments": async (s) => ({ params: { alertId: await s.newAlert() } }),
  "POST /tasks/{taskId}/comments": async (s) => ({ params: { taskId: await s.newTask() }, body: { body: "On a task" } }),
  "GET /tasks/{taskId}/comments": async (s) => ({ params: { taskId: await s.newTask() } }),
  "GET /comments/{id}": async (s) => ({ params: { id: await newComment(s) } }),
  "PATCH /comments/{id}": async (s) => ({ params: { id: await newComment(s) }, body: { body: "Edited" } }),
  "DELETE /comments/{id}": async (s) => ({ params: { id: await newComment(s) } }),

  "POST /api-keys": async () => ({ body: { name: unique("walk key"), scopes: ["cases:read"], tlpClearance: 2 } }),
  "GET /api-keys": async () => ({}),
  "GET /api-keys/{id}": async (s) => ({ params: { id: await newKey(s) } }),
  "DELETE /api-keys/{id}": async (s) => ({ params: { id: await newKey(s) } }),
  "POST /api-keys/{id}/suspend": async (s) => ({ params: { id: await newKey(s) } }),
  "POST /api-keys/{id}/resume": async (s) => {
    const id = await newKey(s);
    await s.api("POST", `/api-keys/${id}/suspend`);
    return { params: { id } };
  },
  "POST /api-keys/{id}/revoke": async (s) => ({ params: { id: await newKey(s) } }),

  "GET /users": async () => ({}),
  "POST /users": async () => ({ body: { email: `${unique("walker")}@acme.test`, name: "Walker" } }),
  "GET /users/{id}": async (s) => ({ params: { id: s.w.analyst.id } }),
  "PATCH /users/{id}": async (s) => ({ params: { id: await newUser(s) }, body: { name: "Renamed walker" } }),

  // Task fields and fresh types: the walk's cases keep free-form values and typeValue stays optional.
  "POST /custom-fields": async () => ({ body: { key: fieldKey(), label: "Walk field", scopes: ["task"], type: "string" } }),
  "GET /custom-fields": async (s) => (await newField(s), { query: { scope: "task" } }),
  "GET /custom-fields/schema": async () => ({ query: { scope: "task" } }),
  "GET /custom-fields/{id}": async (s) => ({ params: { id: await newField(s) } }),
  "PATCH /custom-fields/{id}": async (s) => ({ params: { id: await newField(s) }, body: { label: "Relabelled" } }),
  "POST /case-types": async () => ({ body: { key: unique("walk-type"), label: "Walk type" } }),
  "GET /case-types": async (s) => (await newCaseType(s), {}),
  "GET /case-types/{id}": async (s) => ({ params: { id: await newCaseType(s) } }),
  "PATCH /case-types/{id}": async (s) => ({ params: { id: await newCaseType(s) }, body: { label: "Relabelled", archived: true } }),
  "DELETE /case-types/{id}": async (s) => ({ params: { id: await newCaseType(s) } }),
  "GET /configuration": async () => ({}),
  // The organization's own document back, plus one new type: an import that creates.
  "PUT /configuration": async (s) => {
    const document = (await s.api("GET", "/configuration")) as { caseTypes: unknown[] };
    return { body: { ...document, caseTypes: [...document.caseTypes, { key: unique("walk-type"), label: "Imported type" }] } };
  },
  "POST /teams": async () => ({ body: { name: unique("Walk team") } }),
  "GET /teams": async () => ({}),
  "GET /teams/{id}": async (s) => ({ params: { id: await newTeam(s) } }),
  "PATCH /teams/{id}": async (s) => ({ params: { id: await newTeam(s) }, body: { description: "Walked" } }),

  // A public name: the walk runs no delivery, and the SSRF rule checks names again when connecting.
  "POST /audit-sinks": async () => ({ body: { name: unique("walk sink"), config: { target: "tls://siem.example.com:6514", facility: 16 } } }),
  "GET /audit-sinks": async (s) => (await newSink(s), {}),
  "GET /audit-sinks/{id}": async (s) => ({ params: { id: await newSink(s) } }),
  "PATCH /audit-sinks/{id}": async (s) => ({ params: { id: await newSink(s) }, body: { status: "paused" } }),
  "DELETE /audit-sinks/{id}": async (s) => ({ params: { id: await newSink(s) } }),

  "POST /webhooks": async () => ({ body: webhookBody() }),
  "GET /webhooks": async (s) => (await s.newWebhook(), {}),
  "GET /webhooks/{id}": async (s) => ({ params: { id: await s.newWebhook() } }),
  "PATCH /webhooks/{id}": async (s) => ({ params: { id: await s.newWebhook() }, body: { description: "Walked", maxRetries: 0 } }),
  "DELETE /webhooks/{id}": async (s) => ({ params: { id: await s.newWebhook() } }),
  "POST /webhooks/{id}/rotate-secret": async (s) => ({ params: { id: await s.newWebhook() } }),
  "POST /webhooks/{id}/test": async (s) => ({ params: { id: await s.newWebhook() } }),
  "GET /webhooks/{id}/deliveries": async (s) => {
    const id = await s.newWebhook();
    await s.api("POST", `/webhooks/${id}/test`);
    return { params: { id } };
  },
  "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver": async (s) => failedDelivery(s),

  // Publishing the built-in definitions again changes no record's rules for the other samples.
  ...Object.fromEntries(
    (["case", "alert", "task"] as const).flatMap((entity) => [
      [`GET /lifecycles/${entity}`, async () => ({})],
      [`PUT /lifecycles/${entity}`, async () => ({ body: { statuses: defaultLifecycles[entity].statuses, transitions: defaultLifecycles[entity].transitions } })],
      [`GET /lifecycles/${entity}/versions`, async () => ({})],
    ]),
  ),
  // A named case lifecycle with the built-in case lifecycle's definition: no type names it, so no case follows it.
  "GET /lifecycles/case/named": async () => ({}),
  "PUT /lifecycles/case/named/{key}": async () => ({ params: { key: "walked" }, body: { statuses: defaultLifecycles.case.statuses, transitions: defaultLifecycles.case.transitions } }),
  "GET /lifecycles/case/named/{key}": async (s) => ({ params: { key: await publishedNamedLifecycle(s) } }),
  "GET /lifecycles/case/named/{key}/versions": async (s) => ({ params: { key: await publishedNamedLifecycle(s) } }),
  "GET /cases/{id}/transitions": async (s) => ({ params: { id: await s.newCase() } }),
  "POST /cases/{id}/transitions": async (s) => ({ params: { id: await s.newCase() }, body: { to: "on_hold", reason: "Waiting for the customer" } }),
  "GET /cases/{id}/history": async (s) => ({ params: { id: await s.newCase() } }),
  "GET /alerts/{id}/transitions": async (s) => ({ params: { id: await s.newAlert() } }),
  "POST /alerts/{id}/transitions": async (s) => ({ params: { id: await s.newAlert() }, body: { to: "acknowledged" } }),
  "GET /alerts/{id}/history": async (s) => ({ params: { id: await s.newAlert() } }),
  "GET /tasks/{id}/transitions": async (s) => ({ params: { id: await s.newTask() } }),
  "POST /tasks/{id}/transitions": async (s) => ({ params: { id: await s.newTask() }, body: { to: "in_progress" } }),
  "GET /tasks/{id}/history": async (s) => ({ params: { id: await s.newTask() } }),

  "GET /organization": async () => ({}),
  "PATCH /organization/policy": async () => ({ body: { allowCaseSharing: true } }),
  "GET /tlp/audit-logs": async () => ({ query: { limit: "20" } }),
  "GET /tlp/audit-logs/verify": async () => ({}),
  "GET /audit-events": async (s) => (await s.newCase(), { query: { limit: "20", action: "case.created" } }),
  "GET /audit-events/export": async (s) => (await s.newCase(), { query: { action: "case.created", from: "2000-01-01T00:00:00Z" } }),
  "GET /audit-events/stream": async () => ({ query: { lastEventId: "0" } }),
  "GET /audit-events/verify": async () => ({}),
  "GET /cases/{id}/audit-events": async (s) => ({ params: { id: await s.newCase() }, query: { outcome: "success" } }),
  "GET /tlp/constants": async () => ({}),
  "GET /health": async () => ({}),
  "GET /openapi.json": async () => ({}),
};

// Subscribed to an event the walk never causes, so the only deliveries are the ones a sample asks for.
const webhookBody = () => ({ name: unique("Walk hook"), url: "https://hooks.example.com/walk", events: ["team.deleted"], maxRetries: 0 });

async function newObservable(s: Seed): Promise<string> {
  return (await s.api("POST", `/cases/${await s.newCase()}/observables`, { dataType: "ip", data: "192.0.2.44" })).id;
}
async function newComment(s: Seed): Promise<string> {
  return (await s.api("POST", `/cases/${await s.newCase()}/comments`, { body: "To be walked" })).id;
}
async function newKey(s: Seed): Promise<string> {
  return (await s.api("POST", "/api-keys", { name: unique("walk key"), scopes: ["cases:read"] })).id;
}
async function newUser(s: Seed): Promise<string> {
  return (await s.api("POST", "/users", { email: `${unique("walker")}@acme.test`, name: "Walker" })).id;
}
const fieldKey = (): string => unique("walk_field").replace("-", "_");
async function newField(s: Seed): Promise<string> {
  return (await s.api("POST", "/custom-fields", { key: fieldKey(), label: "Walk field", scopes: ["task"], type: "string" })).id;
}
async function newCaseType(s: Seed): Promise<string> {
  return (await s.api("POST", "/case-types", { key: unique("walk-type"), label: "Walk type" })).id;
}
async function newSink(s: Seed): Promise<string> {
  return (await s.api("POST", "/audit-sinks", { name: unique("walk sink"), config: { target: "tcp://siem.example.com:514" } })).id;
}

async function newTeam(s: Seed): Promise<string> {
  return (await s.api("POST", "/teams", { name: unique("Walk team") })).id;
}

/** A delivery that failed: the receiver answers 500 and the subscription allows no retry. */
/** The key of a named case lifecycle published for the sample. */
async function publishedNamedLifecycle(s: Seed): Promise<string> {
  await s.api("PUT", "/lifecycles/case/named/walked", { statuses: defaultLifecycles.case.statuses, transitions: defaultLifecycles.case.transitions });
  return "walked";
}

async function failedDelivery(s: Seed): Promise<Call> {
  const id = await s.newWebhook();
  const delivery = await s.api("POST", `/webhooks/${id}/test`);
  const dispatcher = s.w.kit.createDispatcher({
    transport: { send: async () => ({ status: 500, retryAfter: null, body: "down", durationMs: 1 }) },
    random: () => 0,
  });
  // Each step claims a bounded batch; other samples' deliveries may be ahead of this one.
  let status: string | undefined;
  for (let step = 0; step < 50 && status !== "failed"; step++) {
    await dispatcher.step();
    status = (await s.api("GET", `/webhooks/${id}/deliveries?eventName=webhook.test`)).data.find((d: Json) => d.id === delivery.id)?.status;
  }
  expect(status).toBe("failed");
  return { params: { id, deliveryId: delivery.id } };
}

// ---------------------------------------------------------------------------------------------
// Errors that need a particular state: "METHOD /path STATUS" → a request that answers it.
// ---------------------------------------------------------------------------------------------

const provocations: Record<string, (s: Seed) => Promise<Call>> = {
  "PATCH /cases/{id} 409": async (s) => {
    const id = await s.newCase();
    await s.api("PATCH", `/cases/${id}`, { statusValue: "closed" });
    return { params: { id }, body: { statusValue: "on_hold" } };
  },
  // `imported` comes only from promote and merge.
  // A definition of the right shape that breaks a rule: a transition to a status it does not have.
  ...Object.fromEntries(
    (["case", "alert", "task"] as const).map((entity) => [
      `PUT /lifecycles/${entity} 422`,
      async () => ({ body: { statuses: defaultLifecycles[entity].statuses, transitions: [{ from: [defaultLifecycles[entity].statuses[0]!.key], to: "nowhere" }] } }),
    ]),
  ),
  // A well-formed key never published is created by PUT: a key of another shape names nothing.
  "PUT /lifecycles/case/named/{key} 404": async () => ({
    params: { key: "Not_A_Key" },
    body: { statuses: defaultLifecycles.case.statuses, transitions: defaultLifecycles.case.transitions },
  }),
  "PUT /lifecycles/case/named/{key} 422": async () => ({
    params: { key: "walked" },
    body: { statuses: defaultLifecycles.case.statuses, transitions: [{ from: ["new"], to: "nowhere" }] },
  }),
  "PATCH /alerts/{id} 409": async (s) => ({ params: { id: await s.newAlert() }, body: { statusValue: "imported" } }),
  // A transition whose gate does not hold: closing a case with an open mandatory task.
  "POST /cases/{id}/transitions 409": async (s) => {
    const id = await s.newCase();
    await s.api("POST", `/cases/${id}/tasks`, { title: "Must be done", mandatory: true });
    return { params: { id }, body: { to: "closed" } };
  },
  "POST /alerts/{id}/transitions 409": async (s) => ({ params: { id: await s.newAlert() }, body: { to: "imported" } }),
  "POST /tasks/{id}/transitions 409": async (s) => {
    const id = await s.newTask();
    await s.api("POST", `/tasks/${id}/transitions`, { to: "completed" });
    return { params: { id }, body: { to: "waiting" } };
  },
  "POST /alerts/{id}/restore 409": async (s) => ({ params: { id: await s.newAlert() } }),
  "POST /alerts/{id}/promote 409": async (s) => {
    const id = await s.newAlert();
    await s.api("POST", `/alerts/${id}/promote`, {});
    return { params: { id }, body: {} };
  },
  "POST /alerts/{id}/merge 409": async (s) => {
    const id = await s.newAlert();
    await s.api("POST", `/alerts/${id}/promote`, {});
    return { params: { id }, body: { caseId: await s.newCase() } };
  },
  // A closed case takes no new task, and its tasks take no change (core/access/closed-records.ts).
  "POST /cases/{caseId}/tasks 409": async (s) => {
    const caseId = await s.newCase();
    await s.api("PATCH", `/cases/${caseId}`, { statusValue: "closed" });
    return { params: { caseId }, body: { title: "Too late" } };
  },
  "DELETE /tasks/{id} 409": async (s) => {
    const id = await s.newTask();
    await s.api("PATCH", `/cases/${(await s.api("GET", `/tasks/${id}`)).caseId}`, { statusValue: "closed" });
    return { params: { id } };
  },
  "PATCH /tasks/{id} 409": async (s) => {
    const id = await s.newTask();
    await s.api("PATCH", `/tasks/${id}`, { status: "completed" });
    return { params: { id }, body: { status: "waiting" } };
  },
  "POST /api-keys/{id}/suspend 409": async (s) => {
    const id = await newKey(s);
    await s.api("POST", `/api-keys/${id}/revoke`);
    return { params: { id } };
  },
  "POST /api-keys/{id}/resume 409": async (s) => ({ params: { id: await newKey(s) } }),
  "POST /api-keys/{id}/revoke 409": async (s) => {
    const id = await newKey(s);
    await s.api("POST", `/api-keys/${id}/revoke`);
    return { params: { id } };
  },
  "POST /users 409": async (s) => ({ body: { email: s.w.analyst.email, name: "Twin" } }),
  "PATCH /users/{id} 409": async (s) => ({ params: { id: s.w.admin.userId }, body: { role: "analyst" } }),
  "POST /custom-fields 409": async (s) => {
    const key = fieldKey();
    await s.api("POST", "/custom-fields", { key, label: "Taken", scopes: ["task"], type: "string" });
    return { body: { key, label: "Twin", scopes: ["task"], type: "string" } };
  },
  "POST /case-types 409": async (s) => {
    const key = unique("taken-type");
    await s.api("POST", "/case-types", { key, label: "Taken" });
    return { body: { key, label: "Twin" } };
  },
  // Bounds that do not apply to the type; options on a string field.
  "POST /audit-sinks 422": async () => ({ body: { name: unique("walk sink"), config: { target: "tcp://10.1.2.3:514" } } }),
  "PATCH /audit-sinks/{id} 422": async (s) => ({ params: { id: await newSink(s) }, body: { config: { target: "tcp://siem.example.com:514", ca: "not a certificate" } } }),
  "POST /custom-fields 422": async () => ({ body: { key: fieldKey(), label: "Walk field", scopes: ["task"], type: "string", bounds: { min: 1 } } }),
  "PATCH /custom-fields/{id} 422": async (s) => ({ params: { id: await newField(s) }, body: { options: [{ id: "a", label: "A" }] } }),
  // A selectAll filter naming no filterable custom field of the organization.
  "DELETE /bulk/tasks 422": async () => ({ body: { options: { selectAll: true, filters: { customFields: { no_such_field: "x" } } } } }),
  // A type's fields must be case custom fields of the organization.
  "POST /case-types 422": async () => ({ body: { key: unique("walk-type"), label: "Walk type", customFields: ["no_such_field"] } }),
  "PATCH /case-types/{id} 422": async (s) => ({ params: { id: await newCaseType(s) }, body: { customFields: ["no_such_field"] } }),
  // A type some case names is never deleted.
  // A type naming no custom field of the organization: 422 invalid_configuration, nothing applied.
  "PUT /configuration 422": async (s) => {
    const document = (await s.api("GET", "/configuration")) as { caseTypes: unknown[] };
    return { body: { ...document, caseTypes: [...document.caseTypes, { key: unique("walk-type"), label: "Broken", customFields: ["no_such_field"] }] } };
  },
  "DELETE /case-types/{id} 409": async (s) => {
    const key = unique("used-type");
    const id = (await s.api("POST", "/case-types", { key, label: "Used" })).id;
    await s.api("POST", "/cases", { title: "Typed", severity: 1, typeValue: key });
    return { params: { id } };
  },
  "POST /teams 409": async (s) => {
    const name = unique("Taken team");
    await s.api("POST", "/teams", { name });
    return { body: { name } };
  },
  "PATCH /teams/{id} 409": async (s) => {
    const name = unique("Taken team");
    await s.api("POST", "/teams", { name });
    return { params: { id: await newTeam(s) }, body: { name } };
  },
  "POST /webhooks/{id}/test 409": async (s) => {
    const id = await s.newWebhook();
    await s.api("PATCH", `/webhooks/${id}`, { status: "disabled" });
    return { params: { id } };
  },
  "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver 409": async (s) => {
    const id = await s.newWebhook();
    const pending = await s.api("POST", `/webhooks/${id}/test`);
    return { params: { id, deliveryId: pending.id } };
  },
};

/**
 * Documented statuses this walk does not provoke, and why. Keep it short: every entry is a
 * promise in the document that no test here holds the server to.
 */
const notProvoked: Record<string, string> = {
  // The case number is taken inside the creating transaction; 409 `conflict` is the answer to a
  // concurrent writer winning the same number, which one in-process request cannot arrange.
  "POST /cases 409": "needs two concurrent writers",
  // 409 `conflict` answers a publisher that lost the race for the next version number.
  "PUT /lifecycles/case 409": "needs two concurrent publishers",
  "PUT /lifecycles/alert 409": "needs two concurrent publishers",
  "PUT /lifecycles/task 409": "needs two concurrent publishers",
  "PUT /lifecycles/case/named/{key} 409": "needs two concurrent publishers",
  "PUT /configuration 409": "needs two concurrent publishers",
  // The public document is built at start-up and touches no storage: nothing in a request can fail it.
  "GET /openapi.json 500": "no storage behind it",
};

// ---------------------------------------------------------------------------------------------

const neverExisting = "zzz_01kaaaaaaaaaaaaaaaaaaaaaaa";
const smallLimit = 16;
const oversized = { padding: "x".repeat(smallLimit * 4) };

interface Operation {
  label: string;
  method: string;
  path: string;
  definition: Json;
}

describe("the OpenAPI document, walked", () => {
  let w: World;
  let doc: Json;
  let client: Transport;
  let seed: Seed;
  let validators: Map<string, ValidateFunction>;
  let ajv: Ajv2020;
  /** The same kit behind an app with a tiny body limit (413), and over a failing storage (500). */
  let smallBodies: Transport;
  let broken: Transport;
  let exhaustedKey: string;

  beforeAll(async () => {
    // The lowest burst a deployment may set (rateLimitFloors); the exhausted key below spends it.
    w = await makeWorld({}, { rateLimits: { deployment: { basic: { burst: rateLimitFloors.burst } } } });
    client = inProcess(w.app);
    const served = await client.send("GET", `${apiBasePath}/openapi.json`);
    expect(served.status).toBe(200);
    doc = served.body;

    ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    addFormats(ajv);
    // Components as one schema resource, so every `#/components/schemas/…` reference resolves.
    ajv.addSchema({ $id: componentsResourceId, $defs: retarget(doc.components.schemas) });
    validators = new Map();

    const admin = bearer(w.adminKey);
    const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const answer = await client.send(method, apiBasePath + path, { headers: admin, ...(body !== undefined ? { body } : {}) });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
      return answer.body;
    };
    seed = {
      w,
      api,
      newCase: async () => (await api("POST", "/cases", { title: "Seeded case", severity: 3, tags: [{ name: "walk" }] })).id,
      newAlert: async () =>
        (await api("POST", "/alerts", { title: "Seeded alert", severity: 2, source: "walk", sourceRef: unique("seed"), observables: [{ dataType: "ip", data: "192.0.2.1" }] })).id,
      newTask: async () => (await api("POST", `/cases/${await seed.newCase()}/tasks`, { title: "Seeded task" })).id,
      newWebhook: async () => (await api("POST", "/webhooks", webhookBody())).id,
    };

    smallBodies = inProcess(createCaseKitApp(w.kit, { bodyLimitBytes: smallLimit }));
    const failing = createCaseKit({ passwordHasher: fastPasswordHasher, storage: failingStorage(w.kit.storage), clock: w.clock, config: { keyHashSecret: w.kit.deps.config.keyHashSecret } });
    broken = inProcess(createCaseKitApp(failing));
    const owner = await userWithKey(w, { scopes: [...allScopes] });
    exhaustedKey = (await addKey(w.kit, owner.user, { tier: "basic", scopes: [...allScopes] })).secret;
    for (let i = 0; i < rateLimitFloors.burst; i++) {
      expect((await client.send("GET", `${apiBasePath}/health`, { headers: bearer(exhaustedKey) })).status).toBe(200);
    }
  });

  const operations = (): Operation[] =>
    Object.entries(doc.paths as Record<string, Json>).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, Json>).map(([method, definition]) => ({ label: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, definition })),
    );

  /** The validator of one declared response body schema. */
  const validatorOf = (key: string, schema: Json): ValidateFunction => {
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(retarget(schema) as Json);
      validators.set(key, validate);
    }
    return validate;
  };

  const send = (transport: Transport, op: Operation, call: Call, headers: HeaderList, override: { body?: unknown } = {}): Promise<Answer> => {
    let path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.params?.[name] ?? neverExisting));
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) for (const v of [value].flat()) query.append(name, v);
    if ([...query].length > 0) path += `?${query}`;
    const body = "body" in override ? override.body : call.body;
    return transport.send(op.method, apiBasePath + path, { headers, ...(body !== undefined ? { body } : {}) });
  };

  /** The answer is the documented status, its media type and a body its schema accepts. */
  const expectDocumented = (op: Operation, answer: Answer, status: string): void => {
    const declared = resolve(doc, op.definition.responses[status]) as Json | undefined;
    expect(declared, `${op.label}: ${status} is not documented (${answer.text})`).toBeDefined();
    const [mediaType, media] = Object.entries(declared!.content as Record<string, Json>)[0]!;
    expect(answer.headers.get("content-type")?.split(";")[0], `${op.label} ${status}`).toBe(mediaType);
    if (media["x-item-schema"]) {
      // A stream: every record (an NDJSON line, an event's data) matches the item schema.
      const validateItem = validatorOf(`${op.label} ${status} item`, media["x-item-schema"]);
      const records = mediaType === "text/event-stream" ? answer.text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5)) : answer.text.split("\n").filter((l) => l !== "");
      for (const record of records) {
        if (!validateItem(JSON.parse(record))) expect.fail(`${op.label} ${status}: a record does not match the item schema: ${ajv.errorsText(validateItem.errors)}\n${record.slice(0, 500)}`);
      }
      return;
    }
    const validate = validatorOf(`${op.label} ${status}`, media.schema);
    if (!validate(answer.body)) expect.fail(`${op.label} ${status}: the body does not match the declared schema: ${ajv.errorsText(validate.errors)}\n${answer.text.slice(0, 500)}`);
  };

  it("has a success sample for every operation, and no sample for an operation it lacks", () => {
    const labels = operations().map((op) => op.label);
    const missing = labels.filter((label) => !samples[label]);
    expect(missing, "operations without a sample in test/server/openapi-walk.test.ts: add one").toEqual([]);
    expect(Object.keys(samples).filter((label) => !labels.includes(label))).toEqual([]);
  });

  it("answers every operation with a documented success whose body matches its schema", async () => {
    for (const op of operations()) {
      const sample = samples[op.label];
      if (!sample) continue; // reported by the test above
      const answer = await send(client, op, await sample(seed), bearer(w.adminKey));
      expect(answer.status, `${op.label}: ${answer.text.slice(0, 500)}`).toBeGreaterThanOrEqual(200);
      expect(answer.status, `${op.label}: ${answer.text.slice(0, 500)}`).toBeLessThan(300);
      expectDocumented(op, answer, String(answer.status));
    }
  });

  it("answers every documented error status with a problem body matching its schema", async () => {
    const unprovoked: string[] = [];
    let checked = 0;
    for (const op of operations()) {
      const sample = samples[op.label];
      if (!sample) continue;
      const statuses = Object.keys(op.definition.responses as Json).filter((s) => Number(s) >= 400);
      const required = requiredScopes(op.definition);
      for (const status of statuses) {
        const cell = `${op.label} ${status}`;
        const provoke = provocations[cell];
        let answer: Answer | undefined;
        if (provoke) {
          const call = await provoke(seed);
          answer = await send(client, op, call, bearer(w.adminKey));
        } else if (status === "400" && op.definition.requestBody) {
          answer = await send(client, op, await sample(seed), bearer(w.adminKey), { body: "{not json" });
        } else if (status === "400" && hasQuery(op.definition)) {
          const call = await sample(seed);
          answer = await send(client, op, { ...call, query: { ...call.query, notAParameter: "1" } }, bearer(w.adminKey));
        } else if (status === "401") {
          answer = await send(client, op, await sample(seed), []);
        } else if (status === "403" && required.size > 0) {
          const key = (await userWithKey(w, { scopes: allScopes.filter((s) => !required.has(s)) })).secret;
          answer = await send(client, op, await sample(seed), bearer(key));
        } else if (status === "404" && op.path.includes("{")) {
          const call = await sample(seed);
          const first = op.path.match(/\{(\w+)\}/)![1]!;
          answer = await send(client, op, { ...call, params: { ...call.params, [first]: neverExisting } }, bearer(w.adminKey));
        } else if (status === "413") {
          answer = await send(smallBodies, op, await sample(seed), bearer(w.adminKey), { body: oversized });
        } else if (status === "422" && op.definition.requestBody) {
          const call = await sample(seed);
          answer = await send(client, op, { ...call, body: unprocessable(call.body as Json, resolve(doc, op.definition.requestBody.content["application/json"].schema) as Json) }, bearer(w.adminKey));
        } else if (status === "415") {
          answer = await send(client, op, await sample(seed), [...bearer(w.adminKey), ["Content-Type", "text/plain"]], { body: "{}" });
        } else if (status === "429") {
          answer = await send(client, op, await sample(seed), bearer(exhaustedKey));
        } else if (status === "500") {
          if (!notProvoked[cell]) answer = await send(broken, op, await sample(seed), bearer(w.adminKey));
        } else if (status === "503" && op.path === "/health") {
          answer = await send(inProcess(createCaseKitApp(createCaseKit({ passwordHasher: fastPasswordHasher, storage: failingStorage(w.kit.storage, "ping"), clock: w.clock, config: { keyHashSecret: w.kit.deps.config.keyHashSecret } }))), op, {}, bearer(w.adminKey));
        }
        if (!answer) {
          if (!notProvoked[cell]) unprovoked.push(cell);
          continue;
        }
        expect.soft(answer.status, `${cell}: ${answer.text.slice(0, 500)}`).toBe(Number(status));
        if (answer.status === Number(status)) expectDocumented(op, answer, status);
        checked++;
      }
    }
    // Every operation documents at least 401 (or 500) and most several more: a walk that checked
    // little would mean the provocations stopped matching the document.
    expect(checked).toBeGreaterThan(operations().length * 4);
    expect(unprovoked, "documented statuses with no provocation: add one to `provocations`, or a reason to `notProvoked`").toEqual([]);
  });

  it("lists in notProvoked only documented statuses", () => {
    const cells = new Set(operations().flatMap((op) => Object.keys(op.definition.responses as Json).map((s) => `${op.label} ${s}`)));
    expect(Object.keys(notProvoked).filter((cell) => !cells.has(cell))).toEqual([]);
    expect(Object.keys(provocations).filter((cell) => !cells.has(cell))).toEqual([]);
  });
});

/**
 * The sample body with a member the server cannot act on although the schema accepts it (422): a
 * well-formed id of no user or team (`fields.assigneeId` in a bulk change), or an expiry already past.
 */
function unprocessable(body: Json, schema: Json): Json {
  const properties = (schema.properties ?? {}) as Json;
  if ("assigneeId" in properties) return { ...body, assigneeId: "user_01kaaaaaaaaaaaaaaaaaaaaaaa" };
  if ("fields" in properties) return { ...body, fields: { assigneeId: "user_01kaaaaaaaaaaaaaaaaaaaaaaa" } };
  if ("escalationTeamId" in properties) return { ...body, escalationTeamId: "team_01kaaaaaaaaaaaaaaaaaaaaaaa" };
  if ("expiresAt" in properties) return { ...body, expiresAt: "2000-01-01T00:00:00Z" };
  throw new Error(`No way to provoke 422 for a body of ${Object.keys(properties).join(", ")}: extend unprocessable()`);
}

/** The scopes an operation's security requirements name; a key without any of them is refused. */
function requiredScopes(operation: Json): Set<Scope> {
  const requirements = (operation.security ?? []) as Record<string, string[]>[];
  return new Set(requirements.flatMap((r) => Object.values(r).flat()) as Scope[]);
}

function hasQuery(operation: Json): boolean {
  return ((operation.parameters ?? []) as Json[]).some((p) => p.in === "query");
}

/** Resolves a `$ref` to a local component (`#/components/responses/NotFound`), or returns the node. */
function resolve(document: Json, node: Json | undefined): unknown {
  if (!node || typeof node.$ref !== "string") return node;
  return (node.$ref as string)
    .slice(2)
    .split("/")
    .reduce<unknown>((at, key) => (at as Json | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
}


/** A storage whose reads and writes fail (or only its ping), with a message that must not leak. */
function failingStorage(storage: Storage, what: "all" | "ping" = "all"): Storage {
  const fail = () => Promise.reject(new Error("SELECT failed: disk I/O error at /var/lib/casekit.db"));
  return {
    ...storage,
    transaction: what === "all" ? fail : (work) => storage.transaction(work),
    read: what === "all" ? fail : (work) => storage.read(work),
    migrate: () => storage.migrate(),
    close: () => storage.close(),
    ping: fail,
  };
}
