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
 *   list leaves out.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes, generateKeySecret } from "../../core/index.js";
import type { Scope } from "../../core/index.js";
import { apiBasePath, apiRoutes } from "../../server/index.js";
import type { ApiRoute } from "../../server/index.js";
import { addKey, addUser } from "../helpers/kit.js";
import { bearer, inProcess } from "./http.js";
import type { Answer, HeaderList, Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
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
} as const;
type Resource = keyof typeof resources;

const hasId = (route: ApiRoute): boolean => route.path.includes("/:id");
const resourceOf = (route: ApiRoute): string => route.path.split("/")[1]!;
const isResource = (name: string): name is Resource => Object.hasOwn(resources, name);

/** An id of the right shape that no record ever had. */
const neverExisting = (resource: Resource): string => `${resources[resource]}_01kaaaaaaaaaaaaaaaaaaaaaaa`;

const pathOf = (route: ApiRoute, id = "id_00000000000000000000000000"): string => apiBasePath + route.path.replace(/:id\b/g, id);

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

  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
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
    const answer = await client.send(route.method, pathOf(route, id), { headers: bearer(w.keys.lowClearance), body: bodyOf(route) });
    expectProblem(answer, 403, "tlp_restricted");
    expect(answer.text).not.toContain(`TLP ${tlp} case`);
    // Nothing changed behind the refusal.
    expect((await w.kit.cases.get(w.admin, id)).title).toBe(`TLP ${tlp} case`);
  });

  each(caseByIdRoutes.map((route) => ({ route, name: `${label(route)} on a TLP:GREEN case → 200 (the key works at its level)` })),
    async ({ route }) => {
      const answer = await client.send(route.method, pathOf(route, green), { headers: bearer(w.keys.lowClearance), body: bodyOf(route) });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.id).toBe(green);
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
