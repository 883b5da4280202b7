/**
 * Closed means closed over HTTP, derived from the route table: every route that changes a case,
 * an alert or a task (or what belongs to one) is aimed at a closed record by an analyst who is
 * neither admin nor assignee, through both transports. A new route on these resources fails the
 * first test until it says what it does to a closed record.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../../server/routes/index.js";
import { userWithKey, makeWorld } from "./world.js";
import type { World } from "./world.js";
import type { Answer, Transport } from "./http.js";
import { bearer, expectProblem, transports, withLength } from "./http.js";

const api = "/api/v1";

/** Routes on these resources that, by decision, a closed record does not govern (README, "Security"). */
const notGoverned: Record<string, string> = {
  "POST /cases": "creates a new, open case",
  "POST /alerts": "ingestion: a repeated report of a closed alert reopens it (the source's word, the lifecycle's one exception)",
  "DELETE /alerts/:id": "soft delete is retention, not an edit: the alert keeps its content and status",
  "POST /alerts/:id/restore": "restore (admins) gives a soft-deleted alert back unchanged",
  "POST /cases/:caseId/observables": "observables are evidence beside the record, not the record",
  "POST /alerts/:alertId/observables": "observables are evidence beside the record, not the record",
  "POST /cases/:caseId/comments": "comments are notes beside the record, not the record",
  "POST /alerts/:alertId/comments": "comments are notes beside the record, not the record",
  "POST /tasks/:taskId/comments": "comments are notes beside the record, not the record",
};

interface Aim {
  method: string;
  path: string;
  body?: unknown;
  /** The problem code (409), or, for bulk routes, the code every record is skipped with (200). */
  refused: "record_closed" | "invalid_transition";
  skipped?: true;
}

/** Closed records to aim at, made fresh per transport. */
interface Closed {
  caseId: string;
  taskId: string;
  alertId: string;
  openAlertId: string;
}

const aims: Record<string, (c: Closed, self: string) => Aim[]> = {
  "PATCH /cases/:id": (c, self) => [
    { method: "PATCH", path: `/cases/${c.caseId}`, body: { assigneeId: self }, refused: "record_closed" },
    { method: "PATCH", path: `/cases/${c.caseId}`, body: { statusValue: "in_progress" }, refused: "invalid_transition" },
  ],
  "PATCH /alerts/:id": (c, self) => [
    { method: "PATCH", path: `/alerts/${c.alertId}`, body: { assigneeId: self }, refused: "record_closed" },
    { method: "PATCH", path: `/alerts/${c.alertId}`, body: { statusValue: "new" }, refused: "invalid_transition" },
  ],
  "POST /cases/:id/transitions": (c, self) => [
    { method: "POST", path: `/cases/${c.caseId}/transitions`, body: { to: "closed", fields: { assigneeId: self } }, refused: "record_closed" },
    { method: "POST", path: `/cases/${c.caseId}/transitions`, body: { to: "in_progress", reason: "Reopening" }, refused: "invalid_transition" },
  ],
  "POST /alerts/:id/transitions": (c) => [{ method: "POST", path: `/alerts/${c.alertId}/transitions`, body: { to: "acknowledged" }, refused: "invalid_transition" }],
  "POST /tasks/:id/transitions": (c) => [{ method: "POST", path: `/tasks/${c.taskId}/transitions`, body: { to: "in_progress" }, refused: "record_closed" }],
  "POST /alerts/:id/promote": (c) => [{ method: "POST", path: `/alerts/${c.alertId}/promote`, body: {}, refused: "invalid_transition" }],
  "POST /alerts/:id/merge": (c) => [{ method: "POST", path: `/alerts/${c.openAlertId}/merge`, body: { caseId: c.caseId }, refused: "record_closed" }],
  "POST /bulk/alerts/assign": (c, self) => [{ method: "POST", path: "/bulk/alerts/assign", body: { ids: [c.alertId], assigneeId: self }, refused: "record_closed", skipped: true }],
  "POST /cases/:caseId/tasks": (c) => [{ method: "POST", path: `/cases/${c.caseId}/tasks`, body: { title: "Late task" }, refused: "record_closed" }],
  "PATCH /tasks/:id": (c) => [{ method: "PATCH", path: `/tasks/${c.taskId}`, body: { title: "Renamed" }, refused: "record_closed" }],
  "DELETE /tasks/:id": (c) => [{ method: "DELETE", path: `/tasks/${c.taskId}`, refused: "record_closed" }],
  "POST /bulk/tasks": (c) => [{ method: "POST", path: "/bulk/tasks", body: { ids: [c.taskId], fields: { title: "Renamed" } }, refused: "record_closed", skipped: true }],
  "DELETE /bulk/tasks": (c) => [{ method: "DELETE", path: "/bulk/tasks", body: { ids: [c.taskId] }, refused: "record_closed", skipped: true }],
};

/** Writes that reach a case, an alert or a task, straight from the route table. */
const governedRoutes = apiRoutes
  .filter((route) => route.method !== "GET" && /^\/(cases|alerts|tasks|bulk\/(alerts|tasks))(\/|$)/.test(route.path))
  .map((route) => `${route.method} ${route.path}`);

describe("closed records over HTTP", () => {
  it("every write route on cases, alerts and tasks is aimed at a closed record below, or listed as not governed with its reason", () => {
    expect(governedRoutes.length).toBeGreaterThan(10);
    expect(governedRoutes.filter((route) => !(route in aims) && !(route in notGoverned))).toEqual([]);
    // And nothing listed here is stale.
    expect([...Object.keys(aims), ...Object.keys(notGoverned)].filter((route) => !governedRoutes.includes(route))).toEqual([]);
  });

  let w: World;
  let analystKey: string;
  let analystId: string;
  beforeAll(async () => {
    w = await makeWorld();
    const { user, secret } = await userWithKey(w, { role: "analyst", scopes: ["cases:read", "cases:write", "alerts:read", "alerts:write", "tasks:read", "tasks:write"] });
    analystKey = secret;
    analystId = user.id;
  });

  /** A closed case with a task, a closed alert and an open one, all the admin's. */
  async function closedRecords(): Promise<Closed> {
    const kit = w.kit;
    const created = await kit.cases.create(w.admin, { title: "Closed case", severity: 2 });
    const taskId = (await kit.tasks.create(w.admin, created.id, { title: "Collect headers" })).id;
    await kit.cases.update(w.admin, created.id, { statusValue: "closed" });
    const ref = () => `ref-${Math.random().toString(36).slice(2)}`;
    const alertId = (await kit.alerts.create(w.admin, { title: "Closed alert", severity: 2, source: "siem", sourceRef: ref() })).id;
    await kit.alerts.update(w.admin, alertId, { statusValue: "closed" });
    const openAlertId = (await kit.alerts.create(w.admin, { title: "Open alert", severity: 2, source: "siem", sourceRef: ref() })).id;
    return { caseId: created.id, taskId, alertId, openAlertId };
  }

  const snapshot = (c: Closed) =>
    w.kit.storage.read(async (tx) => [
      await tx.cases.findById(w.organizationId, c.caseId),
      await tx.tasks.findById(w.organizationId, c.taskId),
      await tx.alerts.findById(w.organizationId, c.alertId),
      await tx.alerts.findById(w.organizationId, c.openAlertId),
      (await tx.events.list(w.organizationId, { limit: 1 }))[0]?.id,
    ]);

  describe.each(transports)("through $name", ({ open }) => {
    let transport: Transport;
    beforeAll(async () => {
      transport = await open(w);
      return () => transport.close();
    });

    it.each(Object.keys(aims))("%s refuses to change a closed record, and changes nothing", async (route) => {
      const c = await closedRecords();
      for (const aim of aims[route]!(c, analystId)) {
        const before = await snapshot(c);
        const headers = withLength(bearer(analystKey), aim.body);
        const answer: Answer = await transport.send(aim.method, `${api}${aim.path}`, aim.body === undefined ? { headers } : { headers, body: aim.body });
        if (aim.skipped) {
          expect(answer.status, answer.text).toBe(200);
          expect(answer.body.skipped).toEqual([{ id: expect.any(String), code: aim.refused }]);
        } else {
          expectProblem(answer, 409, aim.refused);
        }
        expect(await snapshot(c)).toEqual(before);
      }
    });
  });
});
