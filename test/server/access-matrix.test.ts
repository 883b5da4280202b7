/**
 * The access-control matrix: every route of the API v1 table (`apiRoutes`, so a new route is
 * covered the moment it is added) against every way a caller can be refused, each cell its own
 * test with the exact status and problem code the README documents:
 *
 * - authentication (401): no key, malformed keys, unknown keys, deleted / revoked / suspended /
 *   expired keys, keys of disabled / locked / deleted owners;
 * - scope (403 `missing_scope`): a key holding every scope but the route's own (and, as the
 *   control, a key holding only the route's scope gets past the check);
 * - tenant (404 `not_found`): another organization's key on a real record of the first one answers
 *   exactly what an id that never existed answers;
 * - TLP (403 `tlp_restricted`): a clearance-1 key on the case routes for a case above it, which the
 *   list leaves out; and on every route of every TLP-marked resource (cases, alerts, tasks,
 *   observables, comments, bulk, metrics, the TLP audit log), each classified from the route table,
 *   against records above the key by their own marking and by inheritance (a TLP:CLEAR child of a
 *   TLP:RED case or alert).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes, defaultLifecycles, generateKeySecret } from "../../core/index.js";
import type { Scope } from "../../core/index.js";
import { apiBasePath, apiRoutes } from "../../server/index.js";
import type { ApiRoute } from "../../server/index.js";
import { addKey, addUser } from "../helpers/kit.js";
import { sseEventsOf } from "../helpers/sse-client.js";
import { bearer, inProcess } from "./http.js";
import type { Answer, HeaderList, Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

// ---------------------------------------------------------------------------------------------
// What the matrix must know about the route table. Every entry is checked against the table, so
// a new route fails loudly here until it is described (never silently skipped).
// ---------------------------------------------------------------------------------------------

/** `GET /cases/{id}`: the route as the README writes it. */
const label = (route: Pick<ApiRoute, "method" | "path">): string => `${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`;

/** Routes any valid key may call (README: "any valid key" / "any key"); every other route names a scope. */
const unscopedRoutes = ["GET /health", "GET /openapi.json", "GET /organization", "GET /tlp/constants"];

/** A valid body for every route that reads one, so a refusal is never a validation error in disguise. */
const sampleBodies: Record<string, unknown> = {
  "POST /cases": validCase,
  "PATCH /cases/{id}": { title: "Renamed by the matrix" },
  "POST /api-keys": { name: "matrix key", scopes: ["cases:read"] },
  "POST /users": { email: "matrix.user@acme.test", name: "Matrix User" },
  "PATCH /users/{id}": { name: "Renamed by the matrix" },
  "POST /teams": { name: "Matrix team" },
  "PATCH /teams/{id}": { description: "Changed by the matrix" },
  "PATCH /organization/policy": { allowCaseSharing: true },
  "POST /cases/{caseId}/observables": { dataType: "ip", data: "192.0.2.10" },
  "PATCH /observables/{id}": { ioc: true },
  "POST /cases/{caseId}/comments": { body: "Matrix comment" },
  "POST /alerts/{alertId}/comments": { body: "Matrix comment" },
  "PATCH /comments/{id}": { body: "Edited by the matrix" },
  "POST /webhooks": { name: "Matrix hook", url: "https://hooks.example.com/matrix", events: ["case.created"] },
  "PATCH /webhooks/{id}": { description: "Changed by the matrix" },
  "POST /audit-sinks": { name: "Matrix sink", config: { target: "tls://siem.example.com:6514" } },
  "PATCH /audit-sinks/{id}": { name: "Renamed by the matrix" },
  "POST /alerts": { title: "Matrix alert", source: "matrix", sourceRef: "matrix-1", severity: 2 },
  "PATCH /alerts/{id}": { title: "Renamed by the matrix" },
  "POST /alerts/{id}/promote": {},
  "POST /alerts/{id}/merge": { caseId: "case_01kaaaaaaaaaaaaaaaaaaaaaaa" },
  "POST /alerts/{alertId}/observables": { dataType: "ip", data: "192.0.2.11" },
  "POST /cases/{caseId}/tasks": { title: "Matrix task" },
  "PATCH /tasks/{id}": { title: "Renamed by the matrix" },
  "POST /tasks/{taskId}/comments": { body: "Matrix comment" },
  "POST /bulk/tasks": { ids: ["task_01kaaaaaaaaaaaaaaaaaaaaaaa"], fields: { status: "in_progress" } },
  "DELETE /bulk/tasks": { ids: ["task_01kaaaaaaaaaaaaaaaaaaaaaaa"] },
  "POST /bulk/alerts/assign": { ids: ["alert_01kaaaaaaaaaaaaaaaaaaaaaaa"], assigneeId: "user_01kaaaaaaaaaaaaaaaaaaaaaaa" },
  "PUT /lifecycles/case": { statuses: defaultLifecycles.case.statuses, transitions: defaultLifecycles.case.transitions },
  "PUT /lifecycles/alert": { statuses: defaultLifecycles.alert.statuses, transitions: defaultLifecycles.alert.transitions },
  "PUT /lifecycles/task": { statuses: defaultLifecycles.task.statuses, transitions: defaultLifecycles.task.transitions },
  "PUT /lifecycles/case/named/{key}": { statuses: defaultLifecycles.case.statuses, transitions: defaultLifecycles.case.transitions },
  "POST /cases/{id}/transitions": { to: "in_progress", reason: "Matrix move" },
  "POST /alerts/{id}/transitions": { to: "acknowledged" },
  "POST /tasks/{id}/transitions": { to: "in_progress" },
  "POST /custom-fields": { key: "matrix_field", label: "Matrix field", scopes: ["task"], type: "string" },
  "PATCH /custom-fields/{id}": { label: "Relabelled by the matrix" },
  "POST /case-types": { key: "matrix-type", label: "Matrix type" },
  "PATCH /case-types/{id}": { label: "Relabelled by the matrix" },
  "PUT /configuration": {
    version: 1,
    lifecycles: Object.fromEntries((["case", "alert", "task"] as const).map((entity) => [entity, { statuses: defaultLifecycles[entity].statuses, transitions: defaultLifecycles[entity].transitions }])),
    caseTypes: [],
    customFields: [],
  },
};

/** The record kind behind the `{id}` of each resource (first path segment), and its id prefix. */
const resources = {
  cases: "case",
  "api-keys": "key",
  users: "user",
  teams: "team",
  observables: "obs",
  webhooks: "whk",
  comments: "cmt",
  alerts: "alert",
  tasks: "task",
  "custom-fields": "cfd",
  "case-types": "ctype",
  "audit-sinks": "snk",
} as const;
type Resource = keyof typeof resources;

const hasId = (route: ApiRoute): boolean => route.path.includes("/:id");
const resourceOf = (route: ApiRoute): string => route.path.split("/")[1]!;
const isResource = (name: string): name is Resource => Object.hasOwn(resources, name);

/** An id of the right shape that no record ever had. */
const neverExisting = (resource: Resource): string => `${resources[resource]}_01kaaaaaaaaaaaaaaaaaaaaaaa`;

/** Parent ids in a path (`:caseId` …) get a well-formed id that never existed, so the host's id check passes them. */
const parentPrefixes: Readonly<Record<string, string>> = { caseId: "case", alertId: "alert", taskId: "task", deliveryId: "dlv" };
const pathOf = (route: ApiRoute, id = "id_00000000000000000000000000"): string =>
  apiBasePath +
  route.path
    .replace(/:id\b/g, id)
    .replace(/:(\w+Id)\b/g, (_match, name: string) => `${parentPrefixes[name] ?? name}_01kaaaaaaaaaaaaaaaaaaaaaaa`)
    // A named case lifecycle's key: well formed, never published.
    .replace(/:key\b/g, "never-published");

function bodyOf(route: ApiRoute): unknown {
  if (!route.body) return undefined;
  const body = sampleBodies[label(route)];
  if (body === undefined) throw new Error(`${label(route)} reads a body: add a valid sample body to sampleBodies`);
  return body;
}

function expectProblem(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.body).toMatchObject({ status, code, type: `https://casekit.dev/problems/${code}` });
}

/** A key of a new admin of the first organization: every check but scopes passes. */
async function keyWithScopes(w: World, scopes: Scope[], organizationId = w.organizationId): Promise<string> {
  const owner = await addUser(w.kit, organizationId, { role: "admin" });
  return (await addKey(w.kit, owner, { scopes, tlpClearance: 4, tier: "unlimited" })).secret;
}

/** Changes the last checksum character: still key-shaped, but the checksum no longer matches. */
function breakChecksum(secret: string): string {
  const last = secret.at(-1)!;
  return secret.slice(0, -1) + (last === "A" ? "B" : "A");
}

/**
 * One test per cell, named in full (it.each's `$name` would quote and shorten long names).
 */
function each<T extends { name: string }>(cells: readonly T[], test: (cell: T) => unknown): void {
  for (const cell of cells) it(cell.name, () => test(cell));
}

// ---------------------------------------------------------------------------------------------

describe("the matrix covers the route table", () => {
  it("has routes to test", () => {
    expect(apiRoutes.length).toBeGreaterThan(20);
  });

  it("every route without a scope is one documented for any valid key", () => {
    expect(apiRoutes.filter((r) => r.scope === undefined && r.parentScopes === undefined).map(label).sort()).toEqual([...unscopedRoutes].sort());
  });

  each(apiRoutes.filter((r) => r.body).map((route) => ({ route, name: `${label(route)} has a sample body` })), ({ route }) => {
    expect(bodyOf(route)).toBeDefined();
  });

  each(apiRoutes.filter(hasId).map((route) => ({ route, name: `${label(route)} names a known record kind` })), ({ route }) => {
    expect(Object.keys(resources)).toContain(resourceOf(route));
  });

  it("every sample body belongs to a route of the table", () => {
    const labels = new Set(apiRoutes.map(label));
    expect(Object.keys(sampleBodies).filter((name) => !labels.has(name))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Authentication: 401 on every route, before anything else happens.
// ---------------------------------------------------------------------------------------------

interface Credential {
  name: string;
  code: string;
  headers(w: World, extra: Extra): HeaderList;
}
interface Extra {
  unknownKey: string;
  deletedKey: string;
}

const credentials: Credential[] = [
  { name: "no key", code: "missing_credentials", headers: () => [] },
  { name: "a malformed key", code: "invalid_key", headers: () => bearer("not-a-key") },
  { name: "a key with a wrong checksum", code: "invalid_key", headers: (w) => bearer(breakChecksum(w.adminKey)) },
  { name: "a non-Bearer scheme", code: "invalid_key", headers: (w) => [["Authorization", `Token ${w.adminKey}`]] },
  { name: "an unknown well-formed key", code: "invalid_key", headers: (_w, x) => bearer(x.unknownKey) },
  { name: "a deleted key", code: "invalid_key", headers: (_w, x) => bearer(x.deletedKey) },
  { name: "a revoked key", code: "key_revoked", headers: (w) => bearer(w.keys.revoked) },
  { name: "a suspended key", code: "key_suspended", headers: (w) => bearer(w.keys.suspended) },
  { name: "an expired key", code: "key_expired", headers: (w) => bearer(w.keys.expired) },
  { name: "a key of a disabled owner", code: "owner_inactive", headers: (w) => bearer(w.keys.ownerDisabled) },
  { name: "a key of a locked owner", code: "owner_inactive", headers: (w) => bearer(w.keys.ownerLocked) },
  { name: "a key of a deleted owner", code: "owner_inactive", headers: (w) => [["X-Api-Key", w.keys.ownerDeleted]] },
];

describe("authentication on every route", () => {
  let w: World;
  let client: Transport;
  let extra: Extra;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    const victim = await addKey(w.kit, w.analyst);
    await w.kit.keys.delete(w.admin, victim.key.id);
    extra = { unknownKey: generateKeySecret(), deletedKey: victim.secret };
  });

  const cells = apiRoutes.filter((route) => !route.public).flatMap((route) =>
    credentials.map((credential) => ({ route, credential, name: `${label(route)} with ${credential.name} → 401 ${credential.code}` })),
  );

  each(cells, async ({ route, credential }) => {
    const answer = await client.send(route.method, pathOf(route, neverExistingFor(route)), { headers: credential.headers(w, extra), body: bodyOf(route) });
    expectProblem(answer, 401, credential.code);
    expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer realm="casekit"/);
  });

  // Public routes (the OpenAPI document, README "API reference") ignore whatever comes along.
  const publicCells = apiRoutes.filter((route) => route.public).flatMap((route) =>
    credentials.map((credential) => ({ route, credential, name: `${label(route)} with ${credential.name} → 200 (public)` })),
  );
  each(publicCells, async ({ route, credential }) => {
    const answer = await client.send(route.method, pathOf(route), { headers: credential.headers(w, extra) });
    expect(answer.status, answer.text).toBe(200);
  });

  it("writes no key id or organization into the access log of a refused request", () => {
    const refused = w.logs.filter((line) => line.status === 401);
    expect(refused.length).toBeGreaterThan(0);
    for (const line of refused) {
      expect(line.keyId).toBeUndefined();
      expect(line.organizationId).toBeUndefined();
    }
  });
});

/** For routes with an `{id}`: an id of the right kind that never existed. */
function neverExistingFor(route: ApiRoute): string | undefined {
  if (!hasId(route)) return undefined;
  const resource = resourceOf(route);
  return isResource(resource) ? neverExisting(resource) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Scopes: 403 missing_scope for a key that holds everything but the route's scope.
// ---------------------------------------------------------------------------------------------

describe("scopes on every scoped route", () => {
  let w: World;
  let client: Transport;
  /** Per scope: a key with every scope but that one, and a key with only that one. */
  const allBut = new Map<Scope, string>();
  const only = new Map<Scope, string>();
  let noScopes: string;

  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    for (const scope of new Set(apiRoutes.flatMap((r) => (r.scope ? [r.scope] : [])))) {
      allBut.set(scope, await keyWithScopes(w, allScopes.filter((s) => s !== scope)));
      only.set(scope, await keyWithScopes(w, [scope]));
    }
    noScopes = await keyWithScopes(w, []);
    for (const route of apiRoutes.filter((r) => r.scope && r.alsoScopes)) {
      allRequired.set(label(route), await keyWithScopes(w, [route.scope!, ...route.alsoScopes!]));
    }
  });

  /** Routes that need more than one scope (promote and merge: the alert's and the case's). */
  const allRequired = new Map<string, string>();

  const scoped = apiRoutes.filter((r) => r.scope !== undefined).map((route) => ({ route, scope: route.scope!, name: label(route) }));
  const unscoped = apiRoutes.filter((r) => r.scope === undefined && r.parentScopes === undefined).map((route) => ({ route, name: label(route) }));

  each(scoped.map((c) => ({ ...c, name: `${c.name} with every scope but ${c.scope} → 403 missing_scope` })), async ({ route }) => {
    const answer = await client.send(route.method, pathOf(route, neverExistingFor(route)), { headers: bearer(allBut.get(route.scope!)!), body: bodyOf(route) });
    expectProblem(answer, 403, "missing_scope");
  });

  each(scoped.map((c) => ({ ...c, name: `${c.name} with a key without any scope → 403 missing_scope` })), async ({ route }) => {
    const answer = await client.send(route.method, pathOf(route, neverExistingFor(route)), { headers: bearer(noScopes), body: bodyOf(route) });
    expectProblem(answer, 403, "missing_scope");
  });

  // The control: the documented scope is enough to get past the scope check. Empty bodies and
  // never-existing ids keep these requests from changing anything (400 or 404 after the check).
  each(scoped.map((c) => ({ ...c, name: `${c.name} with only ${[c.scope, ...(c.route.alsoScopes ?? [])].join(" and ")} gets past the scope check` })), async ({ route }) => {
    const key = allRequired.get(label(route)) ?? only.get(route.scope!)!;
    const answer = await client.send(route.method, pathOf(route, neverExistingFor(route)), { headers: bearer(key), body: route.body ? {} : undefined });
    expect(answer.status, answer.text).not.toBe(401);
    expect(answer.body?.code, answer.text).not.toBe("missing_scope");
    expect([200, 400, 404], answer.text).toContain(answer.status);
  });

  each(scoped.filter((c) => c.route.alsoScopes).flatMap((c) => c.route.alsoScopes!.map((also) => ({ ...c, also, name: `${c.name} with ${c.scope} but not ${also} → 403 missing_scope` }))), async ({ route }) => {
    const answer = await client.send(route.method, pathOf(route, neverExistingFor(route)), { headers: bearer(only.get(route.scope!)!), body: bodyOf(route) });
    expectProblem(answer, 403, "missing_scope");
  });

  each(unscoped.map((c) => ({ ...c, name: `${c.name} answers 200 to a valid key without any scope` })), async ({ route }) => {
    const answer = await client.send(route.method, pathOf(route), { headers: bearer(noScopes) });
    expect(answer.status, answer.text).toBe(200);
  });
});

/**
 * Routes on a record whose parent decides the scope (a comment by id: its case's, alert's or
 * task's): a key with none of those scopes is refused before anything is looked up; any one of
 * them gets past that first check.
 */
describe("scopes on routes whose parent decides the scope", () => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
  });

  const routes = apiRoutes.filter((r) => r.parentScopes !== undefined);

  it("are the comment routes by id", () => {
    expect(routes.map(label).sort()).toEqual(["DELETE /comments/{id}", "GET /comments/{id}", "PATCH /comments/{id}"]);
  });

  each(routes.map((route) => ({ route, name: `${label(route)} with every scope but ${route.parentScopes!.join(", ")} → 403 missing_scope` })), async ({ route }) => {
    const key = await keyWithScopes(w, allScopes.filter((s) => !route.parentScopes!.includes(s)));
    const answer = await client.send(route.method, pathOf(route, neverExistingFor(route)), { headers: bearer(key), body: bodyOf(route) });
    expectProblem(answer, 403, "missing_scope");
  });

  each(
    routes.flatMap((route) => route.parentScopes!.map((scope) => ({ route, scope, name: `${label(route)} with only ${scope} gets past the scope check` }))),
    async ({ route, scope }) => {
      const key = await keyWithScopes(w, [scope]);
      const answer = await client.send(route.method, pathOf(route, neverExistingFor(route)), { headers: bearer(key), body: route.body ? {} : undefined });
      expect(answer.body?.code, answer.text).not.toBe("missing_scope");
      expect([400, 404], answer.text).toContain(answer.status);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Tenants: another organization's key never learns that a record exists.
// ---------------------------------------------------------------------------------------------

describe("tenant isolation on every route with an {id}", () => {
  let w: World;
  let client: Transport;
  const ids = {} as Record<Resource, string>;
  let snapshot: () => Promise<unknown>;

  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    ids.cases = (await w.kit.cases.create(w.admin, { ...validCase, tlp: 0 })).id;
    ids["api-keys"] = (await addKey(w.kit, w.analyst)).key.id;
    ids.users = w.analyst.id;
    ids.teams = (await w.kit.teams.create(w.admin, { name: "Tier 1" })).id;
    ids.observables = (await w.kit.observables.create(w.admin, { kind: "case", id: ids.cases }, { dataType: "ip", data: "192.0.2.10", tlp: 0 })).id;
    ids.webhooks = (await w.kit.webhooks.create(w.admin, { name: "Tenant hook", url: "https://hooks.example.com/tenant", events: ["*"] })).id;
    ids.comments = (await w.kit.comments.create(w.admin, { kind: "case", id: ids.cases }, { body: "Tenant comment" })).id;
    ids.alerts = (await w.kit.alerts.create(w.admin, { title: "Tenant alert", source: "siem", sourceRef: "tenant-1", severity: 2, tlp: 0 })).id;
    ids.tasks = (await w.kit.tasks.create(w.admin, ids.cases, { title: "Tenant task", tlp: 0 })).id;
    ids["custom-fields"] = (await w.kit.customFields.create(w.admin, { key: "tenant_field", label: "Tenant field", scopes: ["task"], type: "string" })).id;
    ids["case-types"] = (await w.kit.caseTypes.create(w.admin, { key: "tenant-type", label: "Tenant type" })).id;
    ids["audit-sinks"] = (await w.kit.auditSinks.create(w.admin, { name: "Tenant sink", config: { target: "tls://siem.example.com:6514" } })).id;
    snapshot = () =>
      Promise.all([
        w.kit.cases.get(w.admin, ids.cases),
        w.kit.keys.get(w.admin, ids["api-keys"]),
        w.kit.users.get(w.admin, ids.users),
        w.kit.teams.get(w.admin, ids.teams),
        w.kit.observables.get(w.admin, ids.observables),
        w.kit.webhooks.get(w.admin, ids.webhooks),
        w.kit.webhooks.listDeliveries(w.admin, ids.webhooks, {}),
        w.kit.comments.get(w.admin, ids.comments),
        w.kit.alerts.get(w.admin, ids.alerts),
        w.kit.tasks.get(w.admin, ids.tasks),
        w.kit.customFields.get(w.admin, ids["custom-fields"]),
        w.kit.caseTypes.get(w.admin, ids["case-types"]),
        w.kit.auditSinks.get(w.admin, ids["audit-sinks"]),
      ]);
  });

  const cells = apiRoutes.filter(hasId).map((route) => ({ route, name: `${label(route)} with another organization's key → 404 not_found, as for an id that never existed` }));

  each(cells, async ({ route }) => {
    const before = await snapshot();
    const resource = resourceOf(route);
    if (!isResource(resource)) throw new Error(`no record kind for ${label(route)}`);
    const realId = ids[resource];
    const fakeId = neverExisting(resource);
    const headers = bearer(w.other.adminKey);

    const foreign = await client.send(route.method, pathOf(route, realId), { headers, body: bodyOf(route) });
    const unknown = await client.send(route.method, pathOf(route, fakeId), { headers, body: bodyOf(route) });
    expectProblem(foreign, 404, "not_found");
    expectProblem(unknown, 404, "not_found");
    // Nothing tells the two apart: same body once the id itself is set aside.
    expect({ ...foreign.body, detail: foreign.body.detail.replaceAll(realId, "<id>") }).toEqual({
      ...unknown.body,
      detail: unknown.body.detail.replaceAll(fakeId, "<id>"),
    });
    expect(await snapshot()).toEqual(before);
  });

  it("the first organization's own admin reaches the same records (the ids are real)", async () => {
    for (const [resource, id] of Object.entries(ids)) {
      const answer = await client.send("GET", `${apiBasePath}/${resource}/${id}`, { headers: bearer(w.adminKey) });
      expect(answer.status, `${resource}: ${answer.text}`).toBe(200);
      expect(answer.body.id).toBe(id);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// TLP: a key below the record's marking is refused on direct access and the list leaves it out.
// ---------------------------------------------------------------------------------------------

describe("TLP on the case routes, with a clearance-1 key", () => {
  let w: World;
  let client: Transport;
  const marked = new Map<number, string>();
  let green: string;
  /** At clearance 1 with audit:read (an admin's key): the world's clearance-1 key is an analyst's. */
  let lowAuditor: string;
  /** A clearance-1 key that holds the route's scope, so only TLP decides. */
  const lowKey = (route: ApiRoute) => (route.scope === "audit:read" ? lowAuditor : w.keys.lowClearance);

  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    lowAuditor = (await userWithKey(w, { role: "admin", scopes: ["audit:read"], tlpClearance: 1 })).secret;
    green = (await w.kit.cases.create(w.admin, { ...validCase, title: "GREEN case", tlp: 1 })).id;
    for (const tlp of [2, 3, 4]) marked.set(tlp, (await w.kit.cases.create(w.admin, { ...validCase, title: `TLP ${tlp} case`, tlp })).id);
  });

  const tlpNames: Record<number, string> = { 2: "TLP:AMBER", 3: "TLP:AMBER+STRICT", 4: "TLP:RED" };
  const caseByIdRoutes = apiRoutes.filter((r) => resourceOf(r) === "cases" && hasId(r));

  it("covers GET and PATCH /cases/{id} at least", () => {
    expect(caseByIdRoutes.map(label)).toEqual(expect.arrayContaining(["GET /cases/{id}", "PATCH /cases/{id}"]));
  });

  const cells = caseByIdRoutes.flatMap((route) =>
    [4, 3, 2].map((tlp) => ({ route, tlp, name: `${label(route)} on a ${tlpNames[tlp]} case → 403 tlp_restricted` })),
  );

  each(cells, async ({ route, tlp }) => {
    const id = marked.get(tlp)!;
    const answer = await client.send(route.method, pathOf(route, id), { headers: bearer(lowKey(route)), body: bodyOf(route) });
    expectProblem(answer, 403, "tlp_restricted");
    expect(answer.text).not.toContain(`TLP ${tlp} case`);
    // Nothing changed behind the refusal.
    expect((await w.kit.cases.get(w.admin, id)).title).toBe(`TLP ${tlp} case`);
  });

  each(caseByIdRoutes.map((route) => ({ route, name: `${label(route)} on a TLP:GREEN case → 200 (the key works at its level)` })),
    async ({ route }) => {
      const answer = await client.send(route.method, pathOf(route, green), { headers: bearer(lowKey(route)), body: bodyOf(route) });
      expect(answer.status, answer.text).toBe(200);
      // The case itself, or what names it: its transitions, its history's first entry, its trail's newest event.
      expect(answer.body.id ?? answer.body.recordId ?? answer.body.data?.[0]?.recordId ?? answer.body.data?.[0]?.target?.caseId).toBe(green);
    },
  );

  it("GET /cases leaves out every case above the key's clearance", async () => {
    const low = await client.send("GET", `${apiBasePath}/cases?limit=500`, { headers: bearer(w.keys.lowClearance) });
    expect(low.status, low.text).toBe(200);
    const seen = low.body.data.map((c: { id: string }) => c.id);
    expect(seen).toContain(green);
    for (const id of marked.values()) expect(seen).not.toContain(id);
    expect(low.body.data.every((c: { tlp: number }) => c.tlp <= 1)).toBe(true);

    const admin = await client.send("GET", `${apiBasePath}/cases?limit=500`, { headers: bearer(w.adminKey) });
    expect(admin.body.data.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([green, ...marked.values()]));
  });

  it("GET /cases filtered on the RED marking answers an empty page, not an error", async () => {
    const answer = await client.send("GET", `${apiBasePath}/cases?tlp=4`, { headers: bearer(w.keys.lowClearance) });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ data: [], nextCursor: null });
  });
});

// ---------------------------------------------------------------------------------------------
// TLP on every route of a TLP-marked resource, own and inherited marking. Each route is put in a
// class from its path alone; a route in no class and not named below fails the coverage test.
// ---------------------------------------------------------------------------------------------

/** Routes that show or change no TLP-marked record (the README's access notes say why for each). */
const routesWithoutTlpRecords = [
  "POST /api-keys", "GET /api-keys", "GET /api-keys/{id}", "DELETE /api-keys/{id}", "POST /api-keys/{id}/suspend", "POST /api-keys/{id}/resume", "POST /api-keys/{id}/revoke",
  "GET /users", "POST /users", "GET /users/{id}", "PATCH /users/{id}",
  "POST /teams", "GET /teams", "GET /teams/{id}", "PATCH /teams/{id}",
  "POST /webhooks", "GET /webhooks", "GET /webhooks/{id}", "PATCH /webhooks/{id}", "DELETE /webhooks/{id}", "POST /webhooks/{id}/rotate-secret", "POST /webhooks/{id}/test", "GET /webhooks/{id}/deliveries", "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver",
  "GET /organization", "PATCH /organization/policy", "GET /tlp/constants", "GET /health",
  ...["case", "alert", "task"].flatMap((entity) => [`GET /lifecycles/${entity}`, `PUT /lifecycles/${entity}`, `GET /lifecycles/${entity}/versions`]),
  "GET /lifecycles/case/named", "GET /lifecycles/case/named/{key}", "PUT /lifecycles/case/named/{key}", "GET /lifecycles/case/named/{key}/versions",
  "POST /custom-fields", "GET /custom-fields", "GET /custom-fields/schema", "GET /custom-fields/{id}", "PATCH /custom-fields/{id}",
  "POST /case-types", "GET /case-types", "GET /case-types/{id}", "PATCH /case-types/{id}", "DELETE /case-types/{id}",
  "GET /configuration", "PUT /configuration",
  "POST /audit-sinks", "GET /audit-sinks", "GET /audit-sinks/{id}", "PATCH /audit-sinks/{id}", "DELETE /audit-sinks/{id}",
];

type Kind = "case" | "alert" | "task" | "observable" | "comment";
const kindOfSegment: Readonly<Record<string, Kind>> = { cases: "case", alerts: "alert", tasks: "task", observables: "observable", comments: "comment" };
const kindOfParam: Readonly<Record<string, Kind>> = { caseId: "case", alertId: "alert", taskId: "task" };

/** The TLP-marked record a route acts on, named in its path: `{id}` of a marked resource, or a parent's id. */
function markedTarget(route: ApiRoute): { kind: Kind; param: string } | null {
  const parent = /:(caseId|alertId|taskId)\b/.exec(route.path);
  if (parent) return { kind: kindOfParam[parent[1]!]!, param: parent[1]! };
  const kind = kindOfSegment[resourceOf(route)];
  return kind && hasId(route) ? { kind, param: "id" } : null;
}
/** A list of marked records: GET of a marked collection, at the top or under a parent. */
const listsMarked = (route: ApiRoute): Kind | null => (route.method === "GET" ? (kindOfSegment[route.path.split("/").at(-1)!] ?? null) : null);
/** Creation without a parent in the path: the new record's own marking is the caller's to choose. */
const createsMarked = (route: ApiRoute): Kind | null => (route.method === "POST" && route.path.split("/").length === 2 ? (kindOfSegment[resourceOf(route)] ?? null) : null);
const isBulk = (route: ApiRoute) => route.path.startsWith("/bulk/");
const isMetric = (route: ApiRoute) => route.path.startsWith("/metrics/");
const isTlpLog = (route: ApiRoute) => route.path.startsWith("/tlp/audit-logs");
/** The audit events: every change is there, but no value above the reader's clearance (redacted, paths kept). */
const isAuditLog = (route: ApiRoute) => route.path.startsWith("/audit-events");

/** Everything a cell works on, made fresh for each cell (controls change what they may). */
async function seedTree(w: World) {
  const { kit, admin } = w;
  const n = Math.random().toString(36).slice(2, 8);
  const secret = (what: string) => `SECRET ${what} ${n}`;
  const greenCase = await kit.cases.create(admin, { title: `GREEN case ${n}`, severity: 2, tlp: 1 });
  const redCase = await kit.cases.create(admin, { title: secret("case"), severity: 2, tlp: 4 });
  const greenAlert = await kit.alerts.create(admin, { title: `GREEN alert ${n}`, source: `green-${n}`, sourceRef: `g-${n}`, severity: 2, tlp: 1 });
  const redAlert = await kit.alerts.create(admin, { title: secret("alert"), source: `red-${n}`, sourceRef: `r-${n}`, severity: 2, tlp: 4 });
  const greenTask = await kit.tasks.create(admin, greenCase.id, { title: `GREEN task ${n}`, tlp: 0 });
  const redTask = await kit.tasks.create(admin, greenCase.id, { title: secret("task"), tlp: 4 });
  const clearTaskOfRedCase = await kit.tasks.create(admin, redCase.id, { title: secret("inherited task"), tlp: 0 });
  const obs = (parent: { kind: "case" | "alert"; id: string }, tlp: number, label: string) =>
    kit.observables.create(admin, parent, { dataType: "domain", data: `${label}-${n}.example`, tlp, ...(label.startsWith("green") ? {} : { message: secret(label) }) });
  const greenObservable = await obs({ kind: "case", id: greenCase.id }, 0, "green-obs");
  const redObservable = await obs({ kind: "case", id: greenCase.id }, 4, "red-obs");
  const clearObservableOfRedCase = await obs({ kind: "case", id: redCase.id }, 0, "inherited-case-obs");
  const clearObservableOfRedAlert = await obs({ kind: "alert", id: redAlert.id }, 0, "inherited-alert-obs");
  const greenAlertObservable = await obs({ kind: "alert", id: greenAlert.id }, 0, "green-alert-obs");
  const redObservableOfGreenAlert = await obs({ kind: "alert", id: greenAlert.id }, 4, "red-alert-obs");
  const comment = (kind: "case" | "alert" | "task", id: string, body: string) => kit.comments.create(admin, { kind, id }, { body });
  const greenComments = [await comment("case", greenCase.id, "green"), await comment("alert", greenAlert.id, "green"), await comment("task", greenTask.id, "green")];
  const commentOfRedCase = await comment("case", redCase.id, secret("comment"));
  const commentOfRedAlert = await comment("alert", redAlert.id, secret("comment"));
  const commentOfInheritedTask = await comment("task", clearTaskOfRedCase.id, secret("inherited comment"));
  const commentOfRedTask = await comment("task", redTask.id, secret("comment"));

  /** Above clearance 1, by their own marking ("own") or only through a parent ("inherited"). */
  const above: Record<Kind, { variant: "own" | "inherited"; id: string }[]> = {
    case: [{ variant: "own", id: redCase.id }],
    alert: [{ variant: "own", id: redAlert.id }],
    task: [{ variant: "own", id: redTask.id }, { variant: "inherited", id: clearTaskOfRedCase.id }],
    observable: [
      { variant: "own", id: redObservable.id },
      { variant: "inherited", id: clearObservableOfRedCase.id },
      { variant: "inherited", id: clearObservableOfRedAlert.id },
    ],
    comment: [
      { variant: "inherited", id: commentOfRedCase.id },
      { variant: "inherited", id: commentOfInheritedTask.id },
    ],
  };
  const within: Record<Kind, string> = { case: greenCase.id, alert: greenAlert.id, task: greenTask.id, observable: greenObservable.id, comment: greenComments[0]!.id };
  const hidden = new Set(
    [redCase, redAlert, redTask, clearTaskOfRedCase, redObservable, clearObservableOfRedCase, clearObservableOfRedAlert, redObservableOfGreenAlert, commentOfRedCase, commentOfRedAlert, commentOfInheritedTask, commentOfRedTask].map((r) => r.id),
  );
  const visible: Record<Kind, string[]> = {
    case: [greenCase.id],
    alert: [greenAlert.id],
    task: [greenTask.id],
    observable: [greenObservable.id, greenAlertObservable.id],
    comment: greenComments.map((c) => c.id),
  };
  /** What the admin sees of all of it: any change behind a refusal shows here. */
  const snapshot = () =>
    Promise.all([
      kit.cases.list(admin, { limit: 500 }),
      kit.alerts.list(admin, { limit: 500, includeDeleted: "true" }),
      kit.tasks.list(admin, { limit: 500 }),
      kit.observables.list(admin, { limit: 500 }),
      ...[greenCase, redCase].map((c) => kit.comments.listOf(admin, { kind: "case", id: c.id }, {})),
      ...[greenAlert, redAlert].map((a) => kit.comments.listOf(admin, { kind: "alert", id: a.id }, {})),
      // A control may have deleted the GREEN task: its thread is then gone (null).
      ...[greenTask, redTask, clearTaskOfRedCase].map((t) => kit.comments.listOf(admin, { kind: "task", id: t.id }, {}).catch(() => null)),
    ]);
  return { n, greenCase, redAlert, greenAlert, redTask, clearTaskOfRedCase, greenTask, above, within, hidden, visible, snapshot };
}

/** A valid body for `route` acting on this tree (the matrix's sample, with ids that exist). */
function treeBody(route: ApiRoute, tree: Awaited<ReturnType<typeof seedTree>>, ids?: string[]): unknown {
  const name = label(route);
  if (name === "POST /alerts/{id}/merge") return { caseId: tree.greenCase.id };
  if (name === "POST /bulk/tasks") return { ids, fields: { status: "in_progress" } };
  if (name === "DELETE /bulk/tasks") return { ids };
  if (name === "POST /bulk/alerts/assign") return { ids, assigneeId: undefined };
  return bodyOf(route);
}

describe("TLP on every route of a TLP-marked resource, with a clearance-1 key (own and inherited marking)", () => {
  let w: World;
  let client: Transport;
  let low: string;
  let lowUser: string;

  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    const owner = await addUser(w.kit, w.organizationId, { role: "admin" });
    lowUser = owner.id;
    low = (await addKey(w.kit, owner, { scopes: [...allScopes], tlpClearance: 1, tier: "unlimited" })).secret;
  });

  const routes = apiRoutes.filter((r) => !r.public);
  const classes = (route: ApiRoute) =>
    [markedTarget(route) && "record", listsMarked(route) && "list", createsMarked(route) && "create", isBulk(route) && "bulk", isMetric(route) && "metric", isTlpLog(route) && "log", isAuditLog(route) && "audit"].filter(Boolean);

  it("puts every route in a class, or names it as one without TLP-marked records", () => {
    const unclassified = routes.filter((r) => classes(r).length === 0).map(label);
    expect(unclassified.sort()).toEqual([...routesWithoutTlpRecords].sort());
    expect(routes.filter((r) => classes(r).length > 0 && routesWithoutTlpRecords.includes(label(r))).map(label)).toEqual([]);
  });

  it("covers the resources the issue names: cases, alerts, tasks, observables, comments, bulk", () => {
    const kinds = new Set(routes.flatMap((r) => [markedTarget(r)?.kind, listsMarked(r)]).filter(Boolean));
    expect([...kinds].sort()).toEqual(["alert", "case", "comment", "observable", "task"]);
    expect(routes.filter(isBulk).map(label).sort()).toEqual(["DELETE /bulk/tasks", "POST /bulk/alerts/assign", "POST /bulk/tasks"]);
  });

  const recordCells = routes.flatMap((route) => {
    const target = markedTarget(route);
    if (!target) return [];
    const variants: ("own" | "inherited")[] = target.kind === "case" || target.kind === "alert" ? ["own"] : target.kind === "comment" ? ["inherited"] : ["own", "inherited"];
    return variants.map((variant) => ({ route, target, variant, name: `${label(route)} on a ${target.kind} above the key by ${variant === "own" ? "its own marking" : "inheritance (a CLEAR record under a RED one)"} → 403 tlp_restricted, nothing changed` }));
  });

  each(recordCells, async ({ route, target, variant }) => {
    const tree = await seedTree(w);
    for (const { id } of tree.above[target.kind].filter((a) => a.variant === variant)) {
      const before = await tree.snapshot();
      const answer = await client.send(route.method, apiBasePath + route.path.replace(`:${target.param}`, id), { headers: bearer(low), body: treeBody(route, tree) });
      expectProblem(answer, 403, "tlp_restricted");
      expect(answer.text).not.toContain("SECRET");
      expect(await tree.snapshot()).toEqual(before);
    }
  });

  each(
    routes.flatMap((route) => {
      const target = markedTarget(route);
      return target ? [{ route, target, name: `${label(route)} on a ${target.kind} within the key's clearance is not refused for TLP` }] : [];
    }),
    async ({ route, target }) => {
      const tree = await seedTree(w);
      const answer = await client.send(route.method, apiBasePath + route.path.replace(`:${target.param}`, tree.within[target.kind]), { headers: bearer(low), body: treeBody(route, tree) });
      expect(answer.status, answer.text).toBeLessThan(500);
      expect(answer.body?.code, answer.text).not.toBe("tlp_restricted");
    },
  );

  each(
    routes.flatMap((route) => {
      const kind = listsMarked(route);
      return kind ? [{ route, kind, name: `${label(route)} lists no ${kind} above the key, by its own marking or inherited, and the ones within it` }] : [];
    }),
    async ({ route, kind }) => {
      const tree = await seedTree(w);
      const parent = markedTarget(route);
      // Under a parent, the parent within the clearance: its RED children must still stay out.
      const path = parent ? route.path.replace(`:${parent.param}`, tree.within[parent.kind]) : route.path;
      const answer = await client.send("GET", `${apiBasePath}${path}?limit=500`, { headers: bearer(low) });
      expect(answer.status, answer.text).toBe(200);
      const shown: string[] = answer.body.data.map((r: { id: string }) => r.id);
      expect(shown.filter((id) => tree.hidden.has(id))).toEqual([]);
      expect(answer.text).not.toContain("SECRET");
      expect(shown.some((id) => tree.visible[kind].includes(id)), answer.text).toBe(true);
    },
  );

  each(
    routes.flatMap((route) => {
      const kind = createsMarked(route);
      return kind ? [{ route, kind, name: `${label(route)} marked above the key → 403 tlp_restricted, nothing created` }] : [];
    }),
    async ({ route }) => {
      const tree = await seedTree(w);
      const before = await tree.snapshot();
      const answer = await client.send(route.method, apiBasePath + route.path, { headers: bearer(low), body: { ...(bodyOf(route) as object), sourceRef: `new-${tree.n}`, tlp: 4 } });
      expectProblem(answer, 403, "tlp_restricted");
      expect(await tree.snapshot()).toEqual(before);
    },
  );

  each(
    routes.filter(isBulk).map((route) => ({ route, name: `${label(route)} skips records above the key (own and inherited) as tlp_restricted and changes only the one within it` })),
    async ({ route }) => {
      const tree = await seedTree(w);
      const alerts = route.path.includes("/alerts");
      const above = alerts ? [tree.redAlert.id] : [tree.redTask.id, tree.clearTaskOfRedCase.id];
      const within = alerts ? tree.greenAlert.id : tree.greenTask.id;
      const body = treeBody(route, tree, [...above, within]) as Record<string, unknown>;
      if (alerts) body.assigneeId = lowUser;
      const before = await tree.snapshot();
      const answer = await client.send(route.method, apiBasePath + route.path, { headers: bearer(low), body });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.skipped).toEqual(above.map((id) => ({ id, code: "tlp_restricted" })));
      expect(answer.body.matched).toBe(above.length + 1);
      const [cases, , tasks] = before;
      const [casesAfter, , tasksAfter] = await tree.snapshot();
      expect(casesAfter).toEqual(cases);
      if (!alerts) expect(tasksAfter.data.filter((t) => above.includes(t.id))).toEqual(tasks.data.filter((t) => above.includes(t.id)));
      else expect((await w.kit.alerts.get(w.admin, tree.redAlert.id)).assigneeId).toBeNull();
    },
  );

  each(
    routes.filter(isBulk).map((route) => ({ route, name: `${label(route)} with selectAll never selects a record above the key` })),
    async ({ route }) => {
      const tree = await seedTree(w);
      const alerts = route.path.includes("/alerts");
      const body: Record<string, unknown> = { ...(treeBody(route, tree, []) as Record<string, unknown>), ids: undefined, options: { selectAll: true, filters: {} } };
      if (alerts) body.assigneeId = lowUser;
      const answer = await client.send(route.method, apiBasePath + route.path, { headers: bearer(low), body });
      expect(answer.status, answer.text).toBe(200);
      // Other cells' records may be skipped for their own reasons (closed ones); never for TLP.
      expect(answer.body.skipped.filter((s: { id: string; code: string }) => s.code === "tlp_restricted" || tree.hidden.has(s.id))).toEqual([]);
      if (alerts) expect((await w.kit.alerts.get(w.admin, tree.redAlert.id)).assigneeId).toBeNull();
      else for (const id of [tree.redTask.id, tree.clearTaskOfRedCase.id]) expect((await w.kit.tasks.get(w.admin, id)).status).toBe("waiting");
    },
  );

  each(
    routes.filter(isMetric).map((route) => ({ route, name: `${label(route)} counts nothing above the key` })),
    async ({ route }) => {
      const tree = await seedTree(w);
      const answer = await client.send("GET", apiBasePath + route.path, { headers: bearer(low) });
      expect(answer.status, answer.text).toBe(200);
      const sources = answer.body.data.map((r: { source: string }) => r.source);
      expect(sources).toContain(`green-${tree.n}`);
      expect(sources).not.toContain(`red-${tree.n}`);
    },
  );

  each(
    routes.filter(isTlpLog).map((route) => ({ route, name: `${label(route)} names no record and no marking above the key` })),
    async ({ route }) => {
      const tree = await seedTree(w);
      // The admin looks at everything above the key: entries at TLP 4 in the log.
      for (const [kind, targets] of Object.entries(tree.above)) {
        for (const { id } of targets) await client.send("GET", `${apiBasePath}/${kind === "observable" ? "observables" : `${kind}s`}/${id}`, { headers: bearer(w.adminKey) });
      }
      await client.send("GET", `${apiBasePath}/tasks/${tree.redTask.id}`, { headers: bearer(low) });
      const answer = await client.send("GET", `${apiBasePath}${route.path}?limit=500`, { headers: bearer(low) });
      expect(answer.status, answer.text).toBe(200);
      if (route.path.endsWith("/verify")) {
        expect(answer.body).toMatchObject({ ok: true });
        return;
      }
      expect(answer.body.data.length).toBeGreaterThan(0);
      for (const entry of answer.body.data as { resourceId: string; tlpBefore: number | null; tlpAfter: number | null }[]) {
        expect(tree.hidden.has(entry.resourceId), entry.resourceId).toBe(false);
        expect([entry.tlpBefore ?? 0, entry.tlpAfter ?? 0].every((tlp) => tlp <= 1)).toBe(true);
      }
      // The admin's view of the same log has them all.
      const full = await client.send("GET", `${apiBasePath}${route.path}?limit=500`, { headers: bearer(w.adminKey) });
      expect(full.body.data.some((e: { resourceId: string }) => tree.hidden.has(e.resourceId))).toBe(true);
    },
  );

  each(
    routes.filter(isAuditLog).map((route) => ({ route, name: `${label(route)} shows no value above the key: changes of records above it keep their paths, not their values` })),
    async ({ route }) => {
      const tree = await seedTree(w);
      // Changes above the key, by own marking and by inheritance, whose values are secrets.
      await w.kit.alerts.update(w.admin, tree.redAlert.id, { title: `SECRET renamed alert ${tree.n}` });
      await w.kit.tasks.update(w.admin, tree.clearTaskOfRedCase.id, { title: `SECRET renamed task ${tree.n}` });
      const answer = await auditAnswer(w, client, route, low);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain("SECRET");
      if (route.path.endsWith("/verify")) {
        expect(answer.body).toMatchObject({ ok: true });
        return;
      }
      const renamed = (answer.events as { target: { id: string }; changes: { path: string; after: unknown }[] }[]).filter((e) => [tree.redAlert.id, tree.clearTaskOfRedCase.id].includes(e.target.id) && e.changes.length > 0);
      expect(renamed.map((e) => e.changes.find((c) => c.path === "title")?.after)).toEqual(["[redacted]", "[redacted]"]);
      // The admin's view of the same log has the values.
      const full = await auditAnswer(w, client, route, w.adminKey);
      expect(full.text).toContain(`SECRET renamed task ${tree.n}`);
    },
  );
});

/**
 * What an audit route answers `key`, as status, text and events: a list's page (500), the
 * export's lines, or an event stream's events from the first up to the organization's head (an
 * event stream never ends, so it is read that far and cancelled).
 */
async function auditAnswer(w: World, client: Transport, route: ApiRoute, key: string): Promise<{ status: number; text: string; body?: unknown; events: unknown[] }> {
  if (route.stream === "sse") {
    const head = (await client.send("GET", `${apiBasePath}/audit-events?limit=1`, { headers: bearer(w.adminKey) })).body.data[0].seq as number;
    const response = await w.app.fetch(new Request(`http://casekit.test${apiBasePath}${route.path}?lastEventId=0`, { headers: { authorization: `Bearer ${key}` } }));
    if (response.status !== 200) return { status: response.status, text: await response.text(), events: [] };
    const { raw, events } = await sseEventsOf(response, (seen) => seen.some((e) => Number(e.id) >= head));
    return { status: 200, text: raw, events: events.map((e) => JSON.parse(e.data) as unknown) };
  }
  const answer = await client.send("GET", `${apiBasePath}${route.path}${route.stream === "ndjson" ? "" : "?limit=500"}`, { headers: bearer(key) });
  const events = route.stream === "ndjson" ? answer.text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as unknown) : ((answer.body?.data ?? []) as unknown[]);
  return { status: answer.status, text: answer.text, body: answer.body, events };
}
