import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath, buildOpenApiDocument } from "../../server/index.js";
import { actingAs, bearer, expectProblem, transports, withLength } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;
const neverExistingCase = "case_01kaaaaaaaaaaaaaaaaaaaaaaa";
const neverExistingTask = "task_01kaaaaaaaaaaaaaaaaaaaaaaa";

describe.each(transports)("tasks through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  let caseId: string;
  let redCaseId: string;
  /** An analyst's key with both task scopes and TLP clearance 1 (GREEN). */
  let greenKey: string;
  beforeAll(async () => {
    w = await makeWorld();
    greenKey = (await userWithKey(w, { role: "analyst", scopes: ["tasks:read", "tasks:write"], tlpClearance: 1 })).secret;
    client = await open(w);
    caseId = (await w.kit.cases.create(w.admin, { ...validCase, tlp: 1 })).id;
    redCaseId = (await w.kit.cases.create(w.admin, { ...validCase, title: "Insider", tlp: 4 })).id;
  });
  afterAll(async () => {
    await client.close();
  });

  const as = (key: string) => actingAs(client, key);
  const nested = (id: string) => `${api}/cases/${id}/tasks`;

  it("adds, reads back, changes, lists and soft-deletes a task of a case", async () => {
    const admin = as(w.adminKey);
    const created = await admin.post(nested(caseId), { title: "Collect mail headers", mandatory: true, dueDate: "2026-03-02T10:00:00+01:00" });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      organizationId: w.organizationId,
      caseId,
      title: "Collect mail headers",
      status: "waiting",
      mandatory: true,
      tlp: 1,
      order: 1,
      dueDate: "2026-03-02T09:00:00.000Z",
      deletedAt: null,
      deletedBy: null,
    });
    const id: string = created.body.id;
    expect(id).toMatch(/^task_[0-9a-z]{26}$/);
    expect((await admin.get(`${api}/tasks/${id}`)).body).toEqual(created.body);

    const changed = await admin.patch(`${api}/tasks/${id}`, { status: "in_progress", dueDate: null });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id, status: "in_progress", dueDate: null });

    const listed = await as(greenKey).get(`${nested(caseId)}?status=in_progress&mandatory=true`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toEqual([id]);
    const across = await as(greenKey).get(`${api}/tasks?caseId=${caseId}&limit=500`);
    expect(across.body.data.map((t: { id: string }) => t.id)).toContain(id);

    const deleted = await admin.delete(`${api}/tasks/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ id, deletedAt: expect.any(String), deletedBy: expect.stringMatching(/^user_/) });
    expectProblem(await admin.get(`${api}/tasks/${id}`), 404, "not_found");
    expect((await admin.get(`${nested(caseId)}?limit=500`)).body.data.map((t: { id: string }) => t.id)).not.toContain(id);
  });

  it("an open mandatory task keeps the case from closing: 409 mandatory_tasks_open, then closing works", async () => {
    const admin = as(w.adminKey);
    const target = (await w.kit.cases.create(w.admin, { ...validCase, title: "To close" })).id;
    const task = (await admin.post(nested(target), { title: "Notify DPO", mandatory: true })).body;
    expectProblem(await admin.patch(`${api}/cases/${target}`, { statusValue: "closed" }), 409, "mandatory_tasks_open");
    expect((await admin.patch(`${api}/tasks/${task.id}`, { status: "completed" })).status).toBe(200);
    const closed = await admin.patch(`${api}/cases/${target}`, { statusValue: "closed" });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body.statusValue).toBe("closed");
  });

  it("bad bodies and queries are 400 problem+json with the field's path; an invalid transition is 409", async () => {
    const admin = as(w.adminKey);
    const refused = await admin.post(nested(caseId), { title: "x", createdBy: "user_x" });
    expectProblem(refused, 400, "validation_failed");
    expect(refused.body.errors).toEqual([{ path: "createdBy", message: "is not a known field" }]);
    expectProblem(await admin.post(nested(caseId), { title: "" }), 400, "validation_failed");
    expectProblem(await admin.post(nested(caseId), "not json"), 400, "invalid_json");
    expectProblem(await admin.get(`${api}/tasks?limit=0`), 400, "validation_failed");
    expectProblem(await admin.get(`${api}/tasks?cursor=forged`), 400, "validation_failed");
    expectProblem(await admin.get(`${api}/tasks?sort=title`), 400, "validation_failed");
    const task = (await admin.post(nested(caseId), { title: "Done soon" })).body;
    await admin.patch(`${api}/tasks/${task.id}`, { status: "completed" });
    expectProblem(await admin.patch(`${api}/tasks/${task.id}`, { status: "cancelled" }), 409, "invalid_transition");
  });

  it("another organization's key gets 404 on the case's tasks and on the task, as for ids that never existed", async () => {
    const task = (await as(w.adminKey).post(nested(caseId), { title: "Mine" })).body;
    const foreign = as(w.other.adminKey);
    for (const [answer, unknown] of [
      [await foreign.post(nested(caseId), { title: "x" }), await foreign.post(nested(neverExistingCase), { title: "x" })],
      [await foreign.get(nested(caseId)), await foreign.get(nested(neverExistingCase))],
      [await foreign.get(`${api}/tasks/${task.id}`), await foreign.get(`${api}/tasks/${neverExistingTask}`)],
      [await foreign.patch(`${api}/tasks/${task.id}`, { title: "x" }), await foreign.patch(`${api}/tasks/${neverExistingTask}`, { title: "x" })],
      [await foreign.delete(`${api}/tasks/${task.id}`), await foreign.delete(`${api}/tasks/${neverExistingTask}`)],
    ] as const) {
      expectProblem(answer, 404, "not_found");
      expectProblem(unknown, 404, "not_found");
    }
    expect((await foreign.get(`${api}/tasks`)).body.data).toEqual([]);
    const bulk = await foreign.post(`${api}/bulk/tasks`, { ids: [task.id], fields: { title: "hijack" } });
    expect(bulk.body).toMatchObject({ matched: 1, updated: 0, skipped: [{ id: task.id, code: "not_found" }] });
    expect((await as(w.adminKey).get(`${api}/tasks/${task.id}`)).body.title).toBe("Mine");
  });

  it("a task above the caller's clearance, or on a case above it, is 403 tlp_restricted and left out of lists", async () => {
    const admin = as(w.adminKey);
    const red = (await admin.post(nested(caseId), { title: "RED detail", tlp: 4 })).body;
    const onRedCase = (await admin.post(nested(redCaseId), { title: "On the RED case" })).body;
    const green = as(greenKey);
    for (const id of [red.id, onRedCase.id]) {
      for (const answer of [await green.get(`${api}/tasks/${id}`), await green.patch(`${api}/tasks/${id}`, { title: "x" }), await green.delete(`${api}/tasks/${id}`)]) {
        expectProblem(answer, 403, "tlp_restricted");
        expect(answer.text).not.toMatch(/RED detail|On the RED case/);
      }
    }
    expectProblem(await green.post(nested(redCaseId), { title: "x" }), 403, "tlp_restricted");
    expectProblem(await green.get(nested(redCaseId)), 403, "tlp_restricted");
    expectProblem(await green.post(nested(caseId), { title: "x", tlp: 2 }), 403, "tlp_restricted");
    const seen = (await green.get(`${api}/tasks?limit=500`)).body.data.map((t: { id: string }) => t.id);
    expect(seen).not.toContain(red.id);
    expect(seen).not.toContain(onRedCase.id);
    expect((await admin.get(`${api}/tasks/${red.id}`)).body.title).toBe("RED detail");
  });

  it("needs tasks:read to read and tasks:write to write; no key is 401", async () => {
    const task = (await as(w.adminKey).post(nested(caseId), { title: "Scoped" })).body;
    const readOnly = as((await userWithKey(w, { scopes: ["tasks:read", "cases:read", "cases:write"] })).secret);
    const caseScopes = as((await userWithKey(w, { scopes: ["cases:read", "cases:write"] })).secret);
    expect((await readOnly.get(`${api}/tasks/${task.id}`)).status).toBe(200);
    for (const answer of [
      await readOnly.post(nested(caseId), { title: "x" }),
      await readOnly.patch(`${api}/tasks/${task.id}`, { title: "x" }),
      await readOnly.delete(`${api}/tasks/${task.id}`),
      await readOnly.post(`${api}/bulk/tasks`, { ids: [task.id], fields: { title: "x" } }),
      await readOnly.delete(`${api}/bulk/tasks`, { ids: [task.id] }),
      await caseScopes.get(`${api}/tasks`),
      await caseScopes.get(nested(caseId)),
    ]) {
      expectProblem(answer, 403, "missing_scope");
    }
    expectProblem(await client.send("GET", `${api}/tasks`), 401, "missing_credentials");
    expectProblem(await client.send("DELETE", `${api}/bulk/tasks`, { headers: withLength([], { ids: [task.id] }), body: { ids: [task.id] } }), 401, "missing_credentials");
    expect((await as(w.adminKey).get(`${api}/tasks/${task.id}`)).body).toMatchObject({ title: "Scoped", deletedAt: null });
  });

  describe("bulk", () => {
    it("POST /bulk/tasks sets fields by ids and answers counts, skipped records and the bulk request id", async () => {
      const admin = as(w.adminKey);
      const a = (await admin.post(nested(caseId), { title: "A" })).body;
      const b = (await admin.post(nested(caseId), { title: "B" })).body;
      const red = (await admin.post(nested(caseId), { title: "R", tlp: 4 })).body;
      const answer = await as(greenKey).post(`${api}/bulk/tasks`, { ids: [a.id, neverExistingTask, b.id, red.id], fields: { status: "in_progress", dueDate: "2026-04-01T00:00:00Z" } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({
        matched: 4,
        updated: 2,
        skipped: [
          { id: neverExistingTask, code: "not_found" },
          { id: red.id, code: "tlp_restricted" },
        ],
        bulkRequestId: expect.stringMatching(/^bulk_/),
      });
      for (const id of [a.id, b.id]) expect((await admin.get(`${api}/tasks/${id}`)).body).toMatchObject({ status: "in_progress", dueDate: "2026-04-01T00:00:00.000Z" });
      expect((await admin.get(`${api}/tasks/${red.id}`)).body.status).toBe("waiting");
    });

    it("DELETE /bulk/tasks reads its JSON body: selectAll with the list's filters soft-deletes exactly what GET /tasks lists", async () => {
      const admin = as(w.adminKey);
      const own = (await w.kit.cases.create(w.admin, { ...validCase, title: "Bulk target", tlp: 1 })).id;
      const doomed = [(await admin.post(nested(own), { title: "D1", mandatory: true })).body, (await admin.post(nested(own), { title: "D2", mandatory: true })).body];
      const kept = (await admin.post(nested(own), { title: "Kept" })).body;
      const listed = (await admin.get(`${api}/tasks?caseId=${own}&mandatory=true`)).body.data.map((t: { id: string }) => t.id);
      expect(listed.sort()).toEqual(doomed.map((t) => t.id).sort());

      const answer = await admin.delete(`${api}/bulk/tasks`, { options: { selectAll: true, filters: { caseId: [own], mandatory: true } } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({ matched: 2, deleted: 2, skipped: [] });
      for (const t of doomed) expectProblem(await admin.get(`${api}/tasks/${t.id}`), 404, "not_found");
      expect((await admin.get(nested(own))).body.data.map((t: { id: string }) => t.id)).toEqual([kept.id]);
    });

    it("both ids and selectAll, too many ids, no body, a non-JSON body and a tlp above clearance are refused as problems", async () => {
      const admin = as(w.adminKey);
      const both = await admin.delete(`${api}/bulk/tasks`, { ids: [neverExistingTask], options: { selectAll: true } });
      expectProblem(both, 400, "validation_failed");
      expect(both.body.errors).toEqual([expect.objectContaining({ path: "options.selectAll" })]);
      const many = await admin.post(`${api}/bulk/tasks`, { ids: Array.from({ length: 1001 }, (_, i) => `task_${i}`), fields: { status: "completed" } });
      expectProblem(many, 400, "validation_failed");
      expect(many.body.errors).toEqual([expect.objectContaining({ path: "ids" })]);
      expectProblem(await admin.delete(`${api}/bulk/tasks`), 400, "validation_failed");
      expectProblem(await client.send("DELETE", `${api}/bulk/tasks`, { headers: [...bearer(w.adminKey), ["Content-Type", "text/plain"], ["Content-Length", "3"]], body: "ids" }), 415, "unsupported_media_type");
      // Marking records above one's own clearance fails the whole request, before any record is read.
      expectProblem(await as(greenKey).post(`${api}/bulk/tasks`, { ids: [neverExistingTask], fields: { tlp: 3 } }), 403, "tlp_restricted");
    });
  });
});

describe("tasks in the OpenAPI document", () => {
  const doc = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown; responses: Record<string, unknown> }>> };

  it("has every task route, the bulk pair with request bodies, and task comments", () => {
    expect(Object.keys(doc.paths["/cases/{caseId}/tasks"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/tasks"] ?? {})).toEqual(["get"]);
    expect(Object.keys(doc.paths["/tasks/{id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
    expect(Object.keys(doc.paths["/bulk/tasks"] ?? {}).sort()).toEqual(["delete", "post"]);
    expect(Object.keys(doc.paths["/tasks/{taskId}/comments"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(doc.paths["/bulk/tasks"]!.delete!.requestBody).toMatchObject({ required: true });
    expect(doc.paths["/bulk/tasks"]!.post!.security).toEqual(expect.arrayContaining([{ bearerAuth: ["tasks:write"] }]));
    expect(doc.paths["/tasks/{id}"]!.patch!.responses["409"]).toBeDefined();
  });
});
