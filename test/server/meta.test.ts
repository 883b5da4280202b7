import { H3 } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaseKit, version } from "../../core/index.js";
import type { Storage } from "../../core/index.js";
import { apiBasePath, apiRoutes, buildOpenApiDocument, createCaseKitApp, mountCaseKit } from "../../server/index.js";
import { bearer, inProcess, listening } from "./http.js";
import type { Answer, Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

function expectProblem(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.body).toMatchObject({ status, code, type: `https://casekit.dev/problems/${code}` });
}

/** Resolves a local JSON pointer (`#/a/b`) in `document`. */
function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string") out.push(inner);
      else collectRefs(inner, out);
    }
  }
  return out;
}

/** A storage that delegates to a real one but whose ping fails with a message that must not leak. */
function failingPing(storage: Storage): Storage {
  return {
    transaction: (work) => storage.transaction(work),
    read: (work) => storage.read(work),
    migrate: () => storage.migrate(),
    close: () => storage.close(),
    ping: () => Promise.reject(new Error("SELECT 1 failed: connection to /var/lib/secret.db refused")),
  };
}

describe("probes, health failures and unknown routes", () => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
  });

  it("answers /livez and /readyz without a key, with nothing but the status", async () => {
    for (const path of ["/livez", "/readyz"]) {
      const answer = await client.send("GET", path);
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('{"status":"ok"}');
      expect(answer.headers.get("x-request-id")).toMatch(/^req_/);
      const head = await client.send("HEAD", path);
      expect(head.status).toBe(200);
      expect(head.text).toBe("");
    }
    expectProblem(await client.send("POST", "/livez"), 405, "method_not_allowed");
  });

  it("answers /readyz and /api/v1/health with 503 unavailable when the database does not answer, revealing nothing", async () => {
    const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage: failingPing(w.kit.storage), clock: w.clock, config: { keyHashSecret: w.kit.deps.config.keyHashSecret } });
    const broken = inProcess(createCaseKitApp(kit));
    const ready = await broken.send("GET", "/readyz");
    expectProblem(ready, 503, "unavailable");
    expect(ready.text).not.toMatch(/secret|refused|SELECT/);
    expectProblem(await broken.send("GET", `${apiBasePath}/health`), 401, "missing_credentials");
    const health = await broken.send("GET", `${apiBasePath}/health`, { headers: bearer(w.adminKey) });
    expectProblem(health, 503, "unavailable");
    expect(health.text).not.toMatch(/secret|refused|SELECT/);
  });

  it("answers an unknown API route with 401 to anonymous callers and 404 route_not_found after authentication", async () => {
    for (const path of [`${apiBasePath}/nope`, `${apiBasePath}/cases/x/y`, apiBasePath, `${apiBasePath}/`]) {
      expectProblem(await client.send("GET", path), 401, "missing_credentials");
      expectProblem(await client.send("GET", path, { headers: bearer(w.adminKey) }), 404, "route_not_found");
    }
  });

  it("answers a known path with an unsupported method with 405 and Allow, after authentication", async () => {
    expectProblem(await client.send("DELETE", `${apiBasePath}/cases`), 401, "missing_credentials");
    const answer = await client.send("DELETE", `${apiBasePath}/cases`, { headers: bearer(w.adminKey) });
    expectProblem(answer, 405, "method_not_allowed");
    expect(answer.headers.get("allow")).toBe("POST, GET, HEAD");
    const one = await client.send("PUT", `${apiBasePath}/cases/case_x`, { headers: bearer(w.adminKey) });
    expectProblem(one, 405, "method_not_allowed");
    expect(one.headers.get("allow")).toBe("GET, PATCH, HEAD");
  });

  it("answers paths outside the API with 404 problem details and no key", async () => {
    expectProblem(await client.send("GET", "/"), 404, "route_not_found");
    expectProblem(await client.send("GET", "/admin"), 404, "route_not_found");
  });

  it("answers a malformed path with a problem, not a crash", async () => {
    const answer = await client.send("GET", `${apiBasePath}/cases/%ZZ`, { headers: bearer(w.adminKey) });
    expectProblem(answer, 404, "not_found");
  });

  it("answers unexpected failures with a generic 500 and hands the error to onUnexpectedError only", async () => {
    const seen: unknown[] = [];
    const logs: object[] = [];
    const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage: w.kit.storage, clock: w.clock, config: { keyHashSecret: w.kit.deps.config.keyHashSecret } });
    kit.cases = {
      ...kit.cases,
      list: async () => {
        throw new Error('SELECT * FROM cases WHERE secret = "ck_live_x" (at /srv/app/core/cases.ts:12:3)');
      },
    };
    const app = createCaseKitApp(kit, { logger: (line) => logs.push(line), onUnexpectedError: (error) => seen.push(error) });
    const answer = await inProcess(app).send("GET", `${apiBasePath}/cases`, { headers: bearer(w.adminKey) });
    expectProblem(answer, 500, "internal_error");
    expect(answer.text).not.toMatch(/SELECT|secret|ck_live|cases\.ts/);
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toMatch(/SELECT|secret|ck_live|cases\.ts/);
    expect(logs[0]).toMatchObject({ status: 500, code: "internal_error", errorName: "Error" });
  });
});

describe("access log", () => {
  it("writes one line per request with method, path, status, duration, request id and key id, never secrets or queries", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const created = await client.send("POST", `${apiBasePath}/cases`, { headers: bearer(w.adminKey), body: { ...validCase, title: "Confidential title" } });
    const listed = await client.send("GET", `${apiBasePath}/cases?severity=3&source=private-feed`, { headers: bearer(w.adminKey) });
    const refused = await client.send("GET", `${apiBasePath}/cases`);
    expect(w.logs).toHaveLength(3);
    const [first, second, third] = w.logs;
    expect(first).toMatchObject({ msg: "request", method: "POST", path: `${apiBasePath}/cases`, status: 200, requestId: created.headers.get("x-request-id") });
    expect(first!.keyId).toMatch(/^key_/);
    expect(first!.organizationId).toBe(w.organizationId);
    expect(typeof first!.durationMs).toBe("number");
    expect(second).toMatchObject({ method: "GET", path: `${apiBasePath}/cases`, status: 200, requestId: listed.headers.get("x-request-id") });
    expect(third).toMatchObject({ status: 401, code: "missing_credentials", requestId: refused.headers.get("x-request-id") });
    expect(third!.keyId).toBeUndefined();
    const text = JSON.stringify(w.logs);
    expect(text).not.toContain(w.adminKey);
    expect(text).not.toContain("private-feed");
    expect(text).not.toContain("Confidential");
    expect(text).not.toMatch(/authorization|bearer/i);
  });

  it("survives a logger that throws", async () => {
    const w = await makeWorld();
    const app = createCaseKitApp(w.kit, {
      logger: () => {
        throw new Error("log sink down");
      },
    });
    expect((await inProcess(app).send("GET", "/livez")).status).toBe(200);
  });
});

describe("OpenAPI document", () => {
  let w: World;
  let server: Awaited<ReturnType<typeof listening>>;
  let doc: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON document under test
  beforeAll(async () => {
    w = await makeWorld();
    server = await listening(w.app);
    const answer = await server.send("GET", `${apiBasePath}/openapi.json`, { headers: bearer(w.keys.readOnly) });
    expect(answer.status).toBe(200);
    doc = answer.body;
  });
  afterAll(async () => {
    await server.close();
  });

  it("is public (README \"API reference\"): the same document without a key, and nothing else under /api/v1 opens up", async () => {
    const anonymous = await server.send("GET", `${apiBasePath}/openapi.json`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual(doc);
    expect(anonymous.headers.get("x-ratelimit-limit")).toBeNull();
    expect(doc.paths["/openapi.json"].get.security).toEqual([]);
    expect(doc.paths["/openapi.json"].get.responses["401"]).toBeUndefined();
    expectProblem(await server.send("GET", `${apiBasePath}/health`), 401, "missing_credentials");
  });

  it("is OpenAPI 3.1 with the package version and the API base as server", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe(version);
    expect(doc.servers).toEqual([{ url: apiBasePath }]);
  });

  it("describes every route of the table, with 200 and problem+json error responses", () => {
    for (const route of apiRoutes) {
      const path = route.path.replace(/:(\w+)/g, "{$1}");
      const operation = doc.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
      const mediaType = route.stream === "ndjson" ? "application/x-ndjson" : route.stream === "sse" ? "text/event-stream" : "application/json";
      expect(operation.responses["200"].content[mediaType].schema).toBeDefined();
      if (route.stream) expect(operation.responses["200"].content[mediaType]["x-item-schema"]).toBeDefined();
      if (!route.public) expect(operation.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
      if (route.body) {
        expect(operation.requestBody.content["application/json"].schema).toBeDefined();
        for (const status of ["400", "413", "415"]) expect(operation.responses[status]).toBeDefined();
      }
      if (route.scope || route.parentScopes) expect(operation.responses["403"]).toBeDefined();
      if (route.path.includes(":")) expect(operation.responses["404"]).toBeDefined();
    }
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/api-keys",
        "/api-keys/{id}",
        "/api-keys/{id}/resume",
        "/api-keys/{id}/revoke",
        "/api-keys/{id}/suspend",
        "/cases",
        "/cases/{id}",
        "/health",
        "/openapi.json",
        "/organization",
        "/organization/policy",
        "/teams",
        "/teams/{id}",
        "/tlp/audit-logs",
        "/tlp/audit-logs/verify",
        "/tlp/constants",
        "/audit-events",
        "/audit-events/export",
        "/audit-events/stream",
        "/audit-events/verify",
        "/cases/{id}/audit-events",
        "/audit-sinks",
        "/audit-sinks/{id}",
        "/cases/{caseId}/observables",
        "/observables",
        "/observables/{id}",
        "/cases/{caseId}/comments",
        "/alerts/{alertId}/comments",
        "/tasks/{taskId}/comments",
        "/comments/{id}",
        "/users",
        "/users/{id}",
        "/webhooks",
        "/webhooks/{id}",
        "/webhooks/{id}/deliveries",
        "/webhooks/{id}/deliveries/{deliveryId}/redeliver",
        "/webhooks/{id}/rotate-secret",
        "/webhooks/{id}/test",
        "/alerts",
        "/alerts/{id}",
        "/alerts/{id}/restore",
        "/alerts/{id}/promote",
        "/alerts/{id}/merge",
        "/alerts/{alertId}/observables",
        "/metrics/alerts/source",
        "/bulk/alerts/assign",
        "/cases/{caseId}/tasks",
        "/tasks",
        "/tasks/{id}",
        "/bulk/tasks",
        "/lifecycles/case",
        "/lifecycles/case/versions",
        "/lifecycles/case/named",
        "/lifecycles/case/named/{key}",
        "/lifecycles/case/named/{key}/versions",
        "/lifecycles/alert",
        "/lifecycles/alert/versions",
        "/lifecycles/task",
        "/lifecycles/task/versions",
        "/cases/{id}/transitions",
        "/cases/{id}/history",
        "/alerts/{id}/transitions",
        "/alerts/{id}/history",
        "/tasks/{id}/transitions",
        "/tasks/{id}/history",
        "/custom-fields",
        "/custom-fields/schema",
        "/custom-fields/{id}",
        "/case-types",
        "/case-types/{id}",
        "/configuration",
      ].sort(),
    );
    expect(doc.paths["/cases/{id}"].patch.responses["409"]).toBeDefined();
    for (const response of Object.values(doc.components.responses) as Record<string, any>[]) { // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(response.content["application/problem+json"].schema).toEqual({ $ref: "#/components/schemas/Problem" });
    }
  });

  it("takes its schemas from the core's zod schemas, named by their meta id", () => {
    for (const id of ["Case", "CaseCreate", "CaseUpdate", "CaseList", "CaseTag", "Health", "Problem"]) {
      expect(doc.components.schemas[id], id).toBeDefined();
    }
    const create = doc.components.schemas.CaseCreate;
    // severity may be left out when the case's type gives a defaultSeverity (the core refuses it otherwise).
    expect(create.required).toEqual(["title"]);
    expect(create.properties.title).toMatchObject({ minLength: 1, maxLength: 500 });
    expect(create.properties.severity).toMatchObject({ type: "integer", minimum: 1, maximum: 4, description: expect.stringContaining("defaultSeverity") });
    expect(create.properties.tlp).toMatchObject({ minimum: 0, maximum: 4, default: 2 });
    expect(create.properties.pap).toMatchObject({ minimum: 0, maximum: 3, default: 2 });
    expect(create.additionalProperties).toBe(false);
    expect(doc.paths["/cases"].post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CaseCreate" });
    expect(doc.paths["/cases"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CaseList" });
    expect(doc.components.schemas.Problem.properties.code.enum).toContain("ambiguous_credentials");
  });

  it("derives the list's query parameters from the list query schema", () => {
    const parameters = doc.paths["/cases"].get.parameters as { name: string; in: string }[];
    expect(parameters.every((p) => p.in === "query")).toBe(true);
    expect(parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(["limit", "cursor", "statusValue", "severity", "tlp", "assigneeId", "source", "tag", "createdAfter", "createdBefore"]),
    );
    // Path ids declare their kind's shape (server/path-ids.ts); the host answers any other shape 404.
    expect(doc.paths["/cases/{id}"].get.parameters).toEqual([
      expect.objectContaining({ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^case_[0-9a-z]{26}$" } }),
    ]);
  });

  it("declares both credential schemes and the scope each operation needs", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({ type: "apiKey", in: "header", name: "X-Api-Key" });
    expect(doc.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(doc.paths["/cases"].post.security).toEqual([{ bearerAuth: ["cases:write"] }, { apiKeyHeader: ["cases:write"] }]);
  });

  it("resolves every $ref inside the document, and holds no $defs left over", () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(resolvePointer(doc, ref), ref).toBeDefined();
    expect(JSON.stringify(doc)).not.toContain("$defs");
    expect(JSON.stringify(doc)).not.toContain('"$id"');
  });

  it("is the same document the builder produces", () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });
});

describe("mounting into another h3 app", () => {
  it("serves the API, the probes and the document under the prefix, leaving the rest to the parent", async () => {
    const w = await makeWorld();
    const parent = new H3().get("/", () => "parent home");
    mountCaseKit(parent, "/casekit", w.kit);
    const client = inProcess(parent);
    expect((await client.send("GET", "/")).text).toBe("parent home");
    expect((await client.send("GET", "/casekit/livez")).status).toBe(200);
    expectProblem(await client.send("GET", "/casekit/api/v1/health"), 401, "missing_credentials");
    expect((await client.send("GET", "/casekit/api/v1/health", { headers: bearer(w.adminKey) })).body.status).toBe("ok");
    const created = await client.send("POST", "/casekit/api/v1/cases", { headers: bearer(w.adminKey), body: validCase });
    expect(created.status).toBe(200);
    expect((await client.send("GET", `/casekit/api/v1/cases/${created.body.id}`, { headers: bearer(w.adminKey) })).body.id).toBe(created.body.id);
    expectProblem(await client.send("GET", "/casekit/api/v1/nope", { headers: bearer(w.adminKey) }), 404, "route_not_found");
    const doc = await client.send("GET", "/casekit/api/v1/openapi.json", { headers: bearer(w.adminKey) });
    expect(doc.body.servers).toEqual([{ url: "/casekit/api/v1" }]);
    const elsewhere = await client.send("GET", "/elsewhere");
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get("content-type")).not.toBe("application/problem+json");
  });
});
