/**
 * The audit matrix: every route of the API v1 table that changes something (`apiRoutes`, every
 * method but GET, so a new route fails here until it is described) is performed on a real record,
 * and the audit events it wrote (read through `GET /audit-events` after the previous position)
 * must be exactly one per changed record: the action, the target (type, id, case), outcome
 * success, and `changes` whose paths are exactly those that differ between the record read before
 * and after through its GET route, each with those values (a creation lists none).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { defaultLifecycles } from "../../core/index.js";
import { apiBasePath, apiRoutes } from "../../server/index.js";
import type { ApiRoute } from "../../server/index.js";
import { bearer, inProcess, withLength } from "./http.js";
import type { Answer } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";

const label = (route: Pick<ApiRoute, "method" | "path">): string => `${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`;

/** The first organization's admin (every scope, TLP 4), a JSON body where one is given. */
interface Client {
  send(method: string, path: string, spec?: { body?: unknown }): Promise<Answer>;
}

/** One record the route must change, and the event it must write. */
interface Expected {
  action: string;
  target: { type: string; id: string; caseId?: string };
  /** The record's GET path (under /api/v1), read before and after to check `changes`; none for a creation. */
  read?: string;
  /** Set for a bulk route: every event names the bulk request. */
  bulk?: boolean;
  /** A deletion that keeps the record (restorable; GET answers 404): `deleted`, or its undoing `restored`. */
  soft?: "deleted" | "restored";
  /** Where the record has no GET route of its own: the paths the event must list. */
  paths?: string[];
  /** The target's id where neither the answer nor the setup tells it (`id: "$lookup"`): found after the call. */
  lookup?: () => Promise<string>;
}

interface Performed {
  path: string;
  body?: unknown;
  expected: Expected[];
}

/** How to perform a route on a real record: sets the records up, says what must be written. */
type Scenario = (c: Fixtures) => Promise<Performed>;

interface Fixtures {
  client: Client;
  w: World;
  created(path: string, body: unknown): Promise<{ id: string } & Record<string, unknown>>;
}

const lifecycleBody = (entity: "case" | "alert" | "task") => ({ statuses: defaultLifecycles[entity].statuses, transitions: defaultLifecycles[entity].transitions });
const newCase = (c: Fixtures) => c.created("/cases", validCase);
const newAlert = (c: Fixtures, n: string) => c.created("/alerts", { title: `Alert ${n}`, source: "matrix", sourceRef: `ref-${n}`, severity: 2 });
const newTask = async (c: Fixtures) => {
  const kase = await newCase(c);
  return { kase, task: await c.created(`/cases/${kase.id}/tasks`, { title: "Audit task" }) };
};
let serial = 0;
const unique = (prefix: string) => `${prefix}${(serial += 1)}`;

const scenarios: Record<string, Scenario> = {
  "POST /cases": async () => ({ path: "/cases", body: validCase, expected: [{ action: "case.created", target: { type: "case", id: "$created", caseId: "$created" } }] }),
  "PATCH /cases/{id}": async (c) => {
    const kase = await newCase(c);
    return { path: `/cases/${kase.id}`, body: { title: "Renamed" }, expected: [{ action: "case.updated", target: { type: "case", id: kase.id, caseId: kase.id }, read: `/cases/${kase.id}` }] };
  },
  "POST /alerts": async () => ({
    path: "/alerts",
    body: { title: "Alert", source: "matrix", sourceRef: unique("created-"), severity: 2 },
    expected: [{ action: "alert.created", target: { type: "alert", id: "$created" } }],
  }),
  "PATCH /alerts/{id}": async (c) => {
    const alert = await newAlert(c, unique("a"));
    return { path: `/alerts/${alert.id}`, body: { title: "Renamed" }, expected: [{ action: "alert.updated", target: { type: "alert", id: alert.id }, read: `/alerts/${alert.id}` }] };
  },
  "DELETE /alerts/{id}": async (c) => {
    const alert = await newAlert(c, unique("a"));
    return { path: `/alerts/${alert.id}`, expected: [{ action: "alert.deleted", target: { type: "alert", id: alert.id }, read: `/alerts/${alert.id}`, soft: "deleted" }] };
  },
  "POST /alerts/{id}/restore": async (c) => {
    const alert = await newAlert(c, unique("a"));
    await c.client.send("DELETE", `${apiBasePath}/alerts/${alert.id}`);
    return { path: `/alerts/${alert.id}/restore`, expected: [{ action: "alert.restored", target: { type: "alert", id: alert.id }, read: `/alerts/${alert.id}`, soft: "restored" }] };
  },
  "POST /alerts/{id}/promote": async (c) => {
    const alert = await newAlert(c, unique("a"));
    return {
      path: `/alerts/${alert.id}/promote`,
      body: {},
      expected: [
        { action: "case.created", target: { type: "case", id: "$created", caseId: "$created" } },
        // The alert now lives in the case it became.
        { action: "alert.promoted", target: { type: "alert", id: alert.id, caseId: "$created" }, read: `/alerts/${alert.id}` },
      ],
    };
  },
  "POST /alerts/{id}/merge": async (c) => {
    const alert = await newAlert(c, unique("a"));
    const kase = await newCase(c);
    return { path: `/alerts/${alert.id}/merge`, body: { caseId: kase.id }, expected: [{ action: "alert.merged", target: { type: "alert", id: alert.id, caseId: kase.id }, read: `/alerts/${alert.id}` }] };
  },
  "POST /bulk/alerts/assign": async (c) => {
    const [a, b] = [await newAlert(c, unique("a")), await newAlert(c, unique("a"))];
    return {
      path: "/bulk/alerts/assign",
      body: { ids: [a.id, b.id], assigneeId: c.w.analyst.id },
      expected: [a, b].map((x) => ({ action: "alert.updated", target: { type: "alert", id: x.id }, read: `/alerts/${x.id}`, bulk: true })),
    };
  },
  "POST /cases/{caseId}/tasks": async (c) => {
    const kase = await newCase(c);
    return { path: `/cases/${kase.id}/tasks`, body: { title: "Task" }, expected: [{ action: "task.created", target: { type: "task", id: "$created", caseId: kase.id } }] };
  },
  "PATCH /tasks/{id}": async (c) => {
    const { kase, task } = await newTask(c);
    return { path: `/tasks/${task.id}`, body: { title: "Renamed" }, expected: [{ action: "task.updated", target: { type: "task", id: task.id, caseId: kase.id }, read: `/tasks/${task.id}` }] };
  },
  "DELETE /tasks/{id}": async (c) => {
    const { kase, task } = await newTask(c);
    return { path: `/tasks/${task.id}`, expected: [{ action: "task.deleted", target: { type: "task", id: task.id, caseId: kase.id }, read: `/tasks/${task.id}`, soft: "deleted" }] };
  },
  "POST /bulk/tasks": async (c) => {
    const [x, y] = [await newTask(c), await newTask(c)];
    return {
      path: "/bulk/tasks",
      body: { ids: [x.task.id, y.task.id], fields: { status: "in_progress" } },
      expected: [x, y].map(({ kase, task }) => ({ action: "task.updated", target: { type: "task", id: task.id, caseId: kase.id }, read: `/tasks/${task.id}`, bulk: true })),
    };
  },
  "DELETE /bulk/tasks": async (c) => {
    const [x, y] = [await newTask(c), await newTask(c)];
    return {
      path: "/bulk/tasks",
      body: { ids: [x.task.id, y.task.id] },
      expected: [x, y].map(({ kase, task }) => ({ action: "task.deleted", target: { type: "task", id: task.id, caseId: kase.id }, read: `/tasks/${task.id}`, soft: "deleted", bulk: true })),
    };
  },
  "POST /cases/{caseId}/observables": async (c) => {
    const kase = await newCase(c);
    return {
      path: `/cases/${kase.id}/observables`,
      body: { dataType: "ip", data: "192.0.2.10" },
      expected: [{ action: "observable.created", target: { type: "observable", id: "$created", caseId: kase.id } }],
    };
  },
  "POST /alerts/{alertId}/observables": async (c) => {
    const alert = await newAlert(c, unique("a"));
    return { path: `/alerts/${alert.id}/observables`, body: { dataType: "ip", data: "192.0.2.11" }, expected: [{ action: "observable.created", target: { type: "observable", id: "$created" } }] };
  },
  "PATCH /observables/{id}": async (c) => {
    const kase = await newCase(c);
    const obs = await c.created(`/cases/${kase.id}/observables`, { dataType: "ip", data: "192.0.2.12" });
    return { path: `/observables/${obs.id}`, body: { ioc: true }, expected: [{ action: "observable.updated", target: { type: "observable", id: obs.id, caseId: kase.id }, read: `/observables/${obs.id}` }] };
  },
  "DELETE /observables/{id}": async (c) => {
    const kase = await newCase(c);
    const obs = await c.created(`/cases/${kase.id}/observables`, { dataType: "ip", data: "192.0.2.13" });
    return { path: `/observables/${obs.id}`, expected: [{ action: "observable.deleted", target: { type: "observable", id: obs.id, caseId: kase.id }, read: `/observables/${obs.id}`, soft: "deleted" }] };
  },
  "POST /cases/{caseId}/comments": async (c) => {
    const kase = await newCase(c);
    return { path: `/cases/${kase.id}/comments`, body: { body: "Hello" }, expected: [{ action: "comment.created", target: { type: "comment", id: "$created", caseId: kase.id } }] };
  },
  "POST /alerts/{alertId}/comments": async (c) => {
    const alert = await newAlert(c, unique("a"));
    return { path: `/alerts/${alert.id}/comments`, body: { body: "Hello" }, expected: [{ action: "comment.created", target: { type: "comment", id: "$created" } }] };
  },
  "POST /tasks/{taskId}/comments": async (c) => {
    const { kase, task } = await newTask(c);
    return { path: `/tasks/${task.id}/comments`, body: { body: "Hello" }, expected: [{ action: "comment.created", target: { type: "comment", id: "$created", caseId: kase.id } }] };
  },
  "PATCH /comments/{id}": async (c) => {
    const kase = await newCase(c);
    const comment = await c.created(`/cases/${kase.id}/comments`, { body: "Hello" });
    return { path: `/comments/${comment.id}`, body: { body: "Edited" }, expected: [{ action: "comment.updated", target: { type: "comment", id: comment.id, caseId: kase.id }, read: `/comments/${comment.id}` }] };
  },
  "DELETE /comments/{id}": async (c) => {
    const kase = await newCase(c);
    const comment = await c.created(`/cases/${kase.id}/comments`, { body: "Hello" });
    return { path: `/comments/${comment.id}`, expected: [{ action: "comment.deleted", target: { type: "comment", id: comment.id, caseId: kase.id }, read: `/comments/${comment.id}`, soft: "deleted" }] };
  },
  "PUT /lifecycles/case": async () => ({ path: "/lifecycles/case", body: lifecycleBody("case"), expected: [{ action: "lifecycle.published", target: { type: "lifecycle", id: "$created" } }] }),
  "PUT /lifecycles/alert": async () => ({ path: "/lifecycles/alert", body: lifecycleBody("alert"), expected: [{ action: "lifecycle.published", target: { type: "lifecycle", id: "$created" } }] }),
  "PUT /lifecycles/task": async () => ({ path: "/lifecycles/task", body: lifecycleBody("task"), expected: [{ action: "lifecycle.published", target: { type: "lifecycle", id: "$created" } }] }),
  "PUT /lifecycles/case/named/{key}": async () => ({
    path: `/lifecycles/case/named/${unique("named-")}`,
    body: lifecycleBody("case"),
    expected: [{ action: "lifecycle.published", target: { type: "lifecycle", id: "$created" } }],
  }),
  "POST /cases/{id}/transitions": async (c) => {
    const kase = await newCase(c);
    return { path: `/cases/${kase.id}/transitions`, body: { to: "in_progress", reason: "Move" }, expected: [{ action: "case.updated", target: { type: "case", id: kase.id, caseId: kase.id }, read: `/cases/${kase.id}` }] };
  },
  "POST /alerts/{id}/transitions": async (c) => {
    const alert = await newAlert(c, unique("a"));
    return { path: `/alerts/${alert.id}/transitions`, body: { to: "acknowledged" }, expected: [{ action: "alert.updated", target: { type: "alert", id: alert.id }, read: `/alerts/${alert.id}` }] };
  },
  "POST /tasks/{id}/transitions": async (c) => {
    const { kase, task } = await newTask(c);
    return { path: `/tasks/${task.id}/transitions`, body: { to: "in_progress" }, expected: [{ action: "task.updated", target: { type: "task", id: task.id, caseId: kase.id }, read: `/tasks/${task.id}` }] };
  },
  "POST /api-keys": async () => ({ path: "/api-keys", body: { name: "audited key", scopes: ["cases:read"] }, expected: [{ action: "key.created", target: { type: "key", id: "$created" } }] }),
  "DELETE /api-keys/{id}": async (c) => {
    const key = await c.created("/api-keys", { name: "doomed", scopes: ["cases:read"] });
    return { path: `/api-keys/${key.id}`, expected: [{ action: "key.deleted", target: { type: "key", id: key.id }, read: `/api-keys/${key.id}` }] };
  },
  "POST /api-keys/{id}/suspend": async (c) => {
    const key = await c.created("/api-keys", { name: "paused", scopes: ["cases:read"] });
    return { path: `/api-keys/${key.id}/suspend`, expected: [{ action: "key.suspended", target: { type: "key", id: key.id }, read: `/api-keys/${key.id}` }] };
  },
  "POST /api-keys/{id}/resume": async (c) => {
    const key = await c.created("/api-keys", { name: "resumed", scopes: ["cases:read"] });
    await c.client.send("POST", `${apiBasePath}/api-keys/${key.id}/suspend`);
    return { path: `/api-keys/${key.id}/resume`, expected: [{ action: "key.active", target: { type: "key", id: key.id }, read: `/api-keys/${key.id}` }] };
  },
  "POST /api-keys/{id}/revoke": async (c) => {
    const key = await c.created("/api-keys", { name: "revoked", scopes: ["cases:read"] });
    return { path: `/api-keys/${key.id}/revoke`, expected: [{ action: "key.revoked", target: { type: "key", id: key.id }, read: `/api-keys/${key.id}` }] };
  },
  "POST /users": async () => ({ path: "/users", body: { email: `${unique("u")}@acme.test`, name: "New User" }, expected: [{ action: "user.created", target: { type: "user", id: "$created" } }] }),
  "PATCH /users/{id}": async (c) => ({
    path: `/users/${c.w.analyst.id}`,
    body: { name: unique("Renamed ") },
    expected: [{ action: "user.updated", target: { type: "user", id: c.w.analyst.id }, read: `/users/${c.w.analyst.id}` }],
  }),
  "POST /teams": async () => ({ path: "/teams", body: { name: unique("Team ") }, expected: [{ action: "team.created", target: { type: "team", id: "$created" } }] }),
  "PATCH /teams/{id}": async (c) => {
    const team = await c.created("/teams", { name: unique("Team ") });
    return { path: `/teams/${team.id}`, body: { description: "Changed" }, expected: [{ action: "team.updated", target: { type: "team", id: team.id }, read: `/teams/${team.id}` }] };
  },
  "POST /custom-fields": async () => ({
    path: "/custom-fields",
    body: { key: unique("field_"), label: "Field", scopes: ["task"], type: "string" },
    expected: [{ action: "custom_field.created", target: { type: "custom_field", id: "$created" } }],
  }),
  "PATCH /custom-fields/{id}": async (c) => {
    const field = await c.created("/custom-fields", { key: unique("field_"), label: "Field", scopes: ["task"], type: "string" });
    return { path: `/custom-fields/${field.id}`, body: { label: "Relabelled" }, expected: [{ action: "custom_field.updated", target: { type: "custom_field", id: field.id }, read: `/custom-fields/${field.id}` }] };
  },
  "POST /case-types": async () => ({ path: "/case-types", body: { key: unique("type-"), label: "Type" }, expected: [{ action: "case_type.created", target: { type: "case_type", id: "$created" } }] }),
  "PATCH /case-types/{id}": async (c) => {
    const type = await c.created("/case-types", { key: unique("type-"), label: "Type" });
    return { path: `/case-types/${type.id}`, body: { label: "Relabelled" }, expected: [{ action: "case_type.updated", target: { type: "case_type", id: type.id }, read: `/case-types/${type.id}` }] };
  },
  "DELETE /case-types/{id}": async (c) => {
    const type = await c.created("/case-types", { key: unique("type-"), label: "Type" });
    return { path: `/case-types/${type.id}`, expected: [{ action: "case_type.deleted", target: { type: "case_type", id: type.id }, read: `/case-types/${type.id}` }] };
  },
  "PUT /configuration": async (c) => {
    // A configuration that adds one case type: the one record it changes.
    const current = (await c.client.send("GET", `${apiBasePath}/configuration`)).body;
    const key = unique("configured-");
    return {
      path: "/configuration",
      body: { ...current, caseTypes: [...current.caseTypes, { key, label: "Configured" }] },
      expected: [
        {
          action: "case_type.created",
          target: { type: "case_type", id: "$lookup" },
          lookup: async () => ((await c.client.send("GET", `${apiBasePath}/case-types`)).body.data as Array<{ id: string; key: string }>).find((t) => t.key === key)!.id,
        },
      ],
    };
  },
  "POST /audit-sinks": async () => ({
    path: "/audit-sinks",
    body: { name: "Sink", config: { target: "tls://siem.example.com:6514" } },
    expected: [{ action: "audit_sink.created", target: { type: "audit_sink", id: "$created" } }],
  }),
  "PATCH /audit-sinks/{id}": async (c) => {
    const sink = await c.created("/audit-sinks", { name: "Sink", config: { target: "tls://siem.example.com:6514" } });
    return { path: `/audit-sinks/${sink.id}`, body: { name: "Renamed", status: "paused" }, expected: [{ action: "audit_sink.updated", target: { type: "audit_sink", id: sink.id }, read: `/audit-sinks/${sink.id}` }] };
  },
  "DELETE /audit-sinks/{id}": async (c) => {
    const sink = await c.created("/audit-sinks", { name: "Sink", config: { target: "tcp://siem.example.com:514" } });
    return { path: `/audit-sinks/${sink.id}`, expected: [{ action: "audit_sink.deleted", target: { type: "audit_sink", id: sink.id }, read: `/audit-sinks/${sink.id}` }] };
  },
  "POST /webhooks": async () => ({
    path: "/webhooks",
    body: { name: "Hook", url: "https://hooks.example.com/a", events: ["case.created"] },
    expected: [{ action: "webhook.created", target: { type: "webhook", id: "$created" } }],
  }),
  "PATCH /webhooks/{id}": async (c) => {
    const hook = await c.created("/webhooks", { name: "Hook", url: "https://hooks.example.com/b", events: ["case.created"] });
    return { path: `/webhooks/${hook.id}`, body: { description: "Changed" }, expected: [{ action: "webhook.updated", target: { type: "webhook", id: hook.id }, read: `/webhooks/${hook.id}` }] };
  },
  "DELETE /webhooks/{id}": async (c) => {
    const hook = await c.created("/webhooks", { name: "Hook", url: "https://hooks.example.com/c", events: ["case.created"] });
    return { path: `/webhooks/${hook.id}`, expected: [{ action: "webhook.deleted", target: { type: "webhook", id: hook.id }, read: `/webhooks/${hook.id}` }] };
  },
  "POST /webhooks/{id}/rotate-secret": async (c) => {
    const hook = await c.created("/webhooks", { name: "Hook", url: "https://hooks.example.com/d", events: ["case.created"] });
    return { path: `/webhooks/${hook.id}/rotate-secret`, expected: [{ action: "webhook.secret_rotated", target: { type: "webhook", id: hook.id }, read: `/webhooks/${hook.id}` }] };
  },
  "POST /webhooks/{id}/test": async (c) => {
    const hook = await c.created("/webhooks", { name: "Hook", url: "https://hooks.example.com/e", events: ["case.created"] });
    return { path: `/webhooks/${hook.id}/test`, expected: [{ action: "webhook.test", target: { type: "webhook", id: hook.id } }] };
  },
  "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver": async (c) => {
    const hook = await c.created("/webhooks", { name: "Hook", url: "https://hooks.example.com/f", events: ["case.created"] });
    const test = await c.client.send("POST", `${apiBasePath}/webhooks/${hook.id}/test`);
    const delivery = await failedDelivery(c, test.body.id);
    return { path: `/webhooks/${hook.id}/deliveries/${delivery}/redeliver`, expected: [{ action: "webhook.redelivered", target: { type: "webhook_delivery", id: delivery }, paths: ["status", "nextAttemptAt"] }] };
  },
  "PATCH /organization/policy": async (c) => ({
    path: "/organization/policy",
    body: { allowCaseSharing: true },
    expected: [{ action: "organization.updated", target: { type: "organization", id: c.w.organizationId }, read: "/organization" }],
  }),
};

/** Marks the webhook's newest delivery failed, as the dispatcher would after its last attempt. */
async function failedDelivery(c: Fixtures, id: string): Promise<string> {
  await c.w.kit.storage.transaction(async (tx) => {
    const found = await tx.deliveries.findById(c.w.organizationId, id);
    await tx.deliveries.update({ ...found!, status: "failed" });
  });
  return id;
}

const changedRoutes = apiRoutes.filter((route) => route.method !== "GET");

/** Paths whose values differ between two reads of a record, walked into plain objects. */
function differingPaths(before: unknown, after: unknown, prefix = ""): string[] {
  const plain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  if (plain(before) && plain(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].filter((k) => !(prefix === "" && k === "updatedAt")).flatMap((k) => differingPaths(before[k], after[k], `${prefix}${k}.`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix.slice(0, -1)];
}

const valueAt = (record: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, key) => (value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined), record);

let w: World;
let c: Fixtures;
let lastSeq = 0;

async function eventsSince(seq: number) {
  const answer = await c.client.send("GET", `${apiBasePath}/audit-events?limit=500`);
  expect(answer.status).toBe(200);
  return (answer.body.data as Array<Record<string, any>>).filter((e) => e.seq > seq).reverse(); // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON
}

beforeAll(async () => {
  w = await makeWorld();
  const transport = inProcess(w.app);
  const client: Client = { send: (method, path, spec = {}) => transport.send(method, path, { headers: withLength(bearer(w.adminKey), spec.body), ...(spec.body === undefined ? {} : { body: spec.body }) }) };
  c = {
    w,
    client,
    async created(path, body) {
      const answer = await client.send("POST", apiBasePath + path, { body });
      if (answer.status >= 300) throw new Error(`setting up ${path}: ${answer.status} ${answer.text}`);
      return answer.body;
    },
  };
});

describe("the audit matrix covers the route table", () => {
  it("every route that changes something is described", () => {
    expect(changedRoutes.map(label).filter((name) => !Object.hasOwn(scenarios, name))).toEqual([]);
    expect(Object.keys(scenarios).filter((name) => !changedRoutes.some((route) => label(route) === name))).toEqual([]);
  });
});

describe("every route that changes something writes exactly one audit event per changed record", () => {
  for (const route of changedRoutes) {
    it(label(route), async () => {
      const scenario = scenarios[label(route)];
      expect(scenario, `${label(route)}: describe it in scenarios`).toBeDefined();
      const performed = await scenario!(c);
      const reads = performed.expected.filter((e) => e.read);
      const before = await Promise.all(reads.map((e) => c.client.send("GET", apiBasePath + e.read!)));
      lastSeq = (await eventsSince(0)).at(-1)?.seq ?? 0;

      const answer = await c.client.send(route.method, apiBasePath + performed.path, performed.body === undefined ? {} : { body: performed.body });
      expect(answer.status, answer.text).toBeLessThan(300);
      const createdId = answer.body?.case?.id ?? answer.body?.id;
      const events = await eventsSince(lastSeq);

      const seen = events.map((e) => ({ action: e.action, target: e.target, outcome: e.outcome }));
      const lookedUp = await Promise.all(performed.expected.map((e) => e.lookup?.()));
      const wanted = performed.expected.map((e, index) => {
        const id = e.target.id === "$created" ? createdId : e.target.id === "$lookup" ? lookedUp[index] : e.target.id;
        const target = { ...e.target, id, ...(e.target.caseId === "$created" ? { caseId: answer.body?.case?.id ?? createdId } : {}) };
        return { action: e.action, target, outcome: "success" };
      });
      expect(seen).toEqual(wanted);

      for (const [index, expected] of performed.expected.entries()) {
        const event = events[index]!;
        expect(event.bulkRequestId !== null, `${expected.action}: bulkRequestId`).toBe(expected.bulk === true);
        if (expected.paths) {
          expect(event.changes.map((ch: { path: string }) => ch.path).sort(), `${expected.action}: changed paths`).toEqual([...expected.paths].sort());
          continue;
        }
        if (expected.soft) {
          // Kept, so restorable: what changed is when and by whom it was deleted (or that it no longer is).
          const [setTo, from] = expected.soft === "deleted" ? ["after", "before"] : ["before", "after"];
          expect(event.changes.map((ch: { path: string }) => ch.path).sort(), `${expected.action}: changed paths`).toEqual(["deletedAt", "deletedBy"]);
          for (const change of event.changes) {
            expect(change[from], `${expected.action}: ${change.path}`).toBeNull();
            expect(change[setTo], `${expected.action}: ${change.path}`).not.toBeNull();
          }
          continue;
        }
        if (!expected.read) {
          expect(event.changes, `${expected.action}: a creation lists no changes`).toEqual([]);
          continue;
        }
        const beforeRead = before[reads.indexOf(expected)];
        // A record that could not be read before (deleted, about to be restored) had nothing to show.
        const was = beforeRead?.status === 404 ? {} : beforeRead?.body;
        const read = await c.client.send("GET", apiBasePath + expected.read);
        // A record deleted for good reads as gone: every value it showed is what changed, to null.
        const now = read.status === 404 ? null : read.body;
        if (now === null) {
          for (const path of differingPaths(was, {})) {
            const change = (event.changes as Array<{ path: string; before: unknown; after: unknown }>).find((ch) => ch.path === path);
            const shown = valueAt(was, path) ?? null;
            // Secrets read masked, whatever the record showed of them.
            const before = change?.before === "[masked]" && shown !== null ? shown : change?.before;
            expect({ ...change, before }, `${expected.action}: ${path} removed`).toEqual({ path, before: shown, after: null });
          }
          continue;
        }
        expect(event.changes.map((ch: { path: string }) => ch.path).sort(), `${expected.action}: changed paths`).toEqual(differingPaths(was, now).sort());
        for (const change of event.changes as Array<{ path: string; before: unknown; after: unknown }>) {
          expect({ path: change.path, before: change.before, after: change.after }).toEqual({ path: change.path, before: valueAt(was, change.path) ?? null, after: valueAt(now, change.path) ?? null });
        }
      }
    });
  }
});
