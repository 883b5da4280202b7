import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultLifecycles } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { actingAs, bearer, expectProblem, transports } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;

/** The example lifecycle: triage → investigating → waiting_customer (on hold) → contained → closed. */
const socLifecycle = {
  statuses: [
    { key: "triage", label: "Triage", category: "new", final: false, color: "#888888" },
    { key: "investigating", label: "Investigating", category: "in_progress", final: false },
    { key: "waiting_customer", label: "Waiting for the customer", category: "on_hold", final: false },
    { key: "contained", label: "Contained", category: "resolved", final: false },
    { key: "closed", label: "Closed", category: "closed", final: true },
  ],
  transitions: [
    { from: ["triage"], to: "investigating" },
    { from: ["investigating"], to: "waiting_customer", requires: ["reason"] },
    { from: ["waiting_customer"], to: "investigating" },
    { from: ["investigating", "waiting_customer"], to: "contained", requires: ["field:assigneeId"] },
    { from: ["contained"], to: "closed", requires: ["reason", "no_open_mandatory_tasks"] },
    { from: ["closed"], to: "investigating", roles: ["admin", "assignee"] },
  ],
};

describe.each(transports)("lifecycles through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = await open(w);
  });
  afterAll(async () => {
    await client.close();
  });

  const as = (key: string) => actingAs(client, key);
  const put = (key: string, path: string, body: unknown) => client.send("PUT", path, { headers: bearer(key), body });

  it("an organization without a lifecycle of its own reads the built-in one as version 0", async () => {
    const answer = await as(w.other.adminKey).get(`${api}/lifecycles/task`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ id: null, ...defaultLifecycles.task, statuses: defaultLifecycles.task.statuses, mapping: {}, createdAt: null, createdBy: null });
    expect((await as(w.other.adminKey).get(`${api}/lifecycles/task/versions`)).body).toEqual({ data: [], nextCursor: null });
  });

  it("publishing is for admins, refuses a broken definition by path, and needs a mapping for statuses in use", async () => {
    expectProblem(await put(w.keys.readOnly, `${api}/lifecycles/case`, socLifecycle), 403, "missing_scope");
    const broken = await put(w.adminKey, `${api}/lifecycles/case`, { ...socLifecycle, transitions: [{ from: ["triage"], to: "nowhere" }] });
    expectProblem(broken, 422, "invalid_lifecycle");
    expect(broken.body.errors).toEqual([{ path: "transitions.0.to", message: "names no status of this lifecycle (nowhere)" }]);
    await as(w.adminKey).post(`${api}/cases`, validCase);
    const unmapped = await put(w.adminKey, `${api}/lifecycles/case`, socLifecycle);
    expectProblem(unmapped, 422, "invalid_lifecycle");
    expect(unmapped.body.errors.map((e: { path: string }) => e.path)).toEqual(["mapping.new"]);
  });

  it("the issue's scenario over HTTP: transitions with unmet gates, 409 transition_blocked listing them, history of every change", async () => {
    const admin = as(w.adminKey);
    const published = await put(w.adminKey, `${api}/lifecycles/case`, { ...socLifecycle, mapping: { new: "triage" } });
    expect(published.status, published.text).toBe(200);
    expect(published.body).toMatchObject({ entity: "case", version: expect.any(Number), mapping: { new: "triage" } });
    expect((await admin.get(`${api}/lifecycles/case/versions`)).body.data[0].id).toBe(published.body.id);

    const created = await admin.post(`${api}/cases`, validCase);
    expect(created.body.statusValue).toBe("triage");
    const id = created.body.id as string;
    expectProblem(await admin.post(`${api}/cases`, { ...validCase, statusValue: "new" }), 400, "unknown_status");

    expect((await admin.post(`${api}/cases/${id}/transitions`, { to: "investigating" })).body.statusValue).toBe("investigating");
    const options = await admin.get(`${api}/cases/${id}/transitions`);
    expect(options.status, options.text).toBe(200);
    expect(options.body).toEqual({
      recordId: id,
      from: "investigating",
      data: [
        { to: "waiting_customer", label: "Waiting for the customer", category: "on_hold", final: false, unmet: ["reason"] },
        { to: "contained", label: "Contained", category: "resolved", final: false, unmet: ["field:assigneeId"] },
      ],
    });
    const blocked = await admin.post(`${api}/cases/${id}/transitions`, { to: "waiting_customer" });
    expectProblem(blocked, 409, "transition_blocked");
    expect(blocked.body.unmet).toEqual(["reason"]);
    // PATCH is the same operation, with the same answer.
    expect((await admin.patch(`${api}/cases/${id}`, { statusValue: "waiting_customer" })).body.unmet).toEqual(["reason"]);
    expectProblem(await admin.post(`${api}/cases/${id}/transitions`, { to: "closed" }), 409, "invalid_transition");

    await admin.post(`${api}/cases/${id}/transitions`, { to: "waiting_customer", reason: "Asked for the mail headers" });
    await admin.post(`${api}/cases/${id}/transitions`, { to: "investigating" });
    const contained = await admin.post(`${api}/cases/${id}/transitions`, { to: "contained", fields: { assigneeId: w.analyst.id } });
    expect(contained.body).toMatchObject({ statusValue: "contained", assigneeId: w.analyst.id });
    await admin.post(`${api}/cases/${id}/transitions`, { to: "closed", reason: "Done" });

    const history = await admin.get(`${api}/cases/${id}/history?limit=3`);
    expect(history.status, history.text).toBe(200);
    expect(history.body.data.map((e: { from: string | null; to: string }) => [e.from, e.to])).toEqual([
      [null, "triage"],
      ["triage", "investigating"],
      ["investigating", "waiting_customer"],
    ]);
    const rest = await admin.get(`${api}/cases/${id}/history?cursor=${history.body.nextCursor}`);
    expect(rest.body.data.map((e: { to: string; toCategory: string; reason: string | null }) => [e.to, e.toCategory, e.reason])).toEqual([
      ["investigating", "in_progress", null],
      ["contained", "resolved", null],
      ["closed", "closed", "Done"],
    ]);

    // Tenants and clearance as for reading the case.
    expectProblem(await as(w.other.adminKey).get(`${api}/cases/${id}/history`), 404, "not_found");
    expectProblem(await as(w.other.adminKey).get(`${api}/cases/${id}/transitions`), 404, "not_found");
  });

  it("alerts and tasks: transitions and history, promote included", async () => {
    const admin = as(w.adminKey);
    const alert = await admin.post(`${api}/alerts`, { title: "Beacon", source: "edr", sourceRef: "lc-1", severity: 2 });
    expect((await admin.get(`${api}/alerts/${alert.body.id}/transitions`)).body.data.map((o: { to: string }) => o.to)).toEqual(["acknowledged", "closed", "imported"]);
    await admin.post(`${api}/alerts/${alert.body.id}/transitions`, { to: "acknowledged", reason: "Looking" });
    const promoted = await admin.post(`${api}/alerts/${alert.body.id}/promote`, {});
    expect(promoted.status, promoted.text).toBe(200);
    const alertHistory = await admin.get(`${api}/alerts/${alert.body.id}/history`);
    expect(alertHistory.body.data.map((e: { to: string }) => e.to)).toEqual(["new", "acknowledged", "imported"]);
    expect((await admin.get(`${api}/cases/${promoted.body.case.id}/history`)).body.data.map((e: { to: string }) => e.to)).toEqual(["triage"]);

    const task = await admin.post(`${api}/cases/${promoted.body.case.id}/tasks`, { title: "Isolate the host" });
    await admin.post(`${api}/tasks/${task.body.id}/transitions`, { to: "completed", reason: "Isolated" });
    const bulk = await admin.post(`${api}/bulk/tasks`, { ids: [task.body.id], fields: { status: "in_progress" } });
    expect(bulk.body).toMatchObject({ updated: 1 });
    const taskHistory = await admin.get(`${api}/tasks/${task.body.id}/history`);
    expect(taskHistory.body.data.map((e: { from: string | null; to: string; reason: string | null }) => [e.from, e.to, e.reason])).toEqual([
      [null, "waiting", null],
      ["waiting", "completed", "Isolated"],
      ["completed", "in_progress", null],
    ]);
    expect(taskHistory.body.data.every((e: { actorKeyId: string | null }) => e.actorKeyId !== null)).toBe(true);
  });
});
