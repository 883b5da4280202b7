/**
 * The bulk maximum over HTTP: every bulk route of the route table answers a selectAll above the
 * maximum with 400 bulk_too_large, the maximum in the problem (the setting: load-settings.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, Principal } from "../../core/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { createCaseKitApp } from "../../server/index.js";
import { apiRoutes } from "../../server/routes/index.js";
import { alertRecord } from "../conformance/alert-record.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { taskRecord } from "../conformance/task-record.js";
import { bearer, expectProblem, inProcess, withLength } from "./http.js";
import type { Transport } from "./http.js";

describe("bulk routes above the maximum", () => {
  const maxRows = 5;
  let kit: CaseKit;
  let admin: Principal;
  let adminKey: string;
  let organizationId: string;
  let transport: Transport;

  beforeAll(async () => {
    const storage = createSqliteStorage({ path: ":memory:" });
    await storage.migrate();
    const clock = new ManualClock("2026-03-01T12:00:00.000Z");
    kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret, bulkMaxRows: maxRows } });
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    adminKey = init.apiKey;
    admin = await kit.authenticateKey(adminKey);
    organizationId = init.organization.id;
    const caseId = (await kit.cases.create(admin, { title: "Phishing wave", severity: 3 })).id;
    const at = clock.now().toISOString();
    await kit.storage.transaction(async (tx) => {
      for (let i = 0; i <= maxRows; i++) {
        await tx.tasks.insert(taskRecord(kit.deps.ids.next("task"), organizationId, caseId, at, { title: `Task ${i}` }));
        await tx.alerts.insert(alertRecord(kit.deps.ids.next("alert"), organizationId, at, { sourceRef: `ref-${i}` }));
      }
    });
    transport = inProcess(createCaseKitApp(kit));
  });

  /** The body of each bulk route with a selectAll over everything; a new bulk route must be added here. */
  const bodies: Record<string, () => Record<string, unknown>> = {
    "POST /bulk/tasks": () => ({ options: { selectAll: true }, fields: { title: "Renamed" } }),
    "DELETE /bulk/tasks": () => ({ options: { selectAll: true } }),
    "POST /bulk/alerts/assign": () => ({ options: { selectAll: true }, assigneeId: admin.userId }),
  };
  const bulkRoutes = apiRoutes.filter((route) => route.path.startsWith("/bulk/")).map((route) => `${route.method} ${route.path}`);

  it("every bulk route of the route table is covered", () => {
    expect(bulkRoutes.sort()).toEqual(Object.keys(bodies).sort());
  });

  it.each(Object.keys(bodies))("%s with a selectAll over more records than the maximum is 400 bulk_too_large with maxRows, and changes nothing", async (route) => {
    const [method, path] = route.split(" ") as [string, string];
    const body = bodies[route]!();
    const before = await kit.storage.read(async (tx) => [await tx.tasks.list(organizationId, { maxTlp: 4 }, { limit: 100 }), await tx.alerts.list(organizationId, { maxTlp: 4 }, { limit: 100 }), await tx.events.list(organizationId, { limit: 100 })]);
    const answer = await transport.send(method, `/api/v1${path}`, { headers: withLength(bearer(adminKey), body), body });
    expectProblem(answer, 400, "bulk_too_large");
    expect(answer.body).toMatchObject({ maxRows, errors: [{ path: "options.selectAll", message: expect.stringContaining(`at most ${maxRows}`) }] });
    const after = await kit.storage.read(async (tx) => [await tx.tasks.list(organizationId, { maxTlp: 4 }, { limit: 100 }), await tx.alerts.list(organizationId, { maxTlp: 4 }, { limit: 100 }), await tx.events.list(organizationId, { limit: 100 })]);
    expect(after).toEqual(before);
  });
});
