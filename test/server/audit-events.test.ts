import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { actingAs, expectProblem, inProcess } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;

describe("audit events over HTTP", () => {
  let w: World;
  let client: Transport;
  let caseId: string;
  let taskId: string;
  let auditor: string;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    const admin = actingAs(client, w.adminKey);
    caseId = (await admin.post(`${api}/cases`, { ...validCase, tlp: 2 })).body.id as string;
    taskId = (await admin.post(`${api}/cases/${caseId}/tasks`, { title: "Collect headers" })).body.id as string;
    await admin.patch(`${api}/cases/${caseId}`, { title: "Renamed" });
    await admin.post(`${api}/cases`, { ...validCase, title: "Another" });
    auditor = (await userWithKey(w, { role: "admin", scopes: ["audit:read"], tlpClearance: 1 })).secret;
  });
  afterAll(async () => {
    await client.close();
  });

  it("lists events newest first, one per change, with actor, target, outcome and changes; cursor pages neither skip nor repeat", async () => {
    const admin = actingAs(client, w.adminKey);
    const all = await admin.get(`${api}/audit-events?limit=500`);
    expect(all.status).toBe(200);
    const events = all.body.data as { seq: number; action: string; target: { id: string; caseId?: string }; actor: { type: string }; changes: unknown[] }[];
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => b - a));
    const updated = events.find((e) => e.action === "case.updated")!;
    expect(updated).toMatchObject({ target: { type: "case", id: caseId, caseId }, actor: { type: "apiKey" }, outcome: "success", changes: [{ path: "title", before: validCase.title, after: "Renamed" }] });
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await admin.get(`${api}/audit-events?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...(page.body.data as { seq: number }[]).map((e) => e.seq));
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
    expect(seen).toEqual(events.map((e) => e.seq));
  });

  it("filters: action, target, case, actor type, outcome, a phrase; bad filters are 400 and name the field", async () => {
    const admin = actingAs(client, w.adminKey);
    const actions = async (query: string) => ((await admin.get(`${api}/audit-events?${query}`)).body.data as { action: string }[]).map((e) => e.action);
    expect(await actions("action=case.updated")).toEqual(["case.updated"]);
    expect(await actions(`targetId=${taskId}`)).toEqual(["task.created"]);
    expect(await actions(`caseId=${caseId}`)).toEqual(["case.updated", "task.created", "case.created"]);
    expect(await actions("q=TASK.CRE")).toEqual(["task.created"]);
    expect(await actions("outcome=denied")).toEqual([]);
    expect((await actions("actorType=apiKey")).length).toBeGreaterThanOrEqual(4);
    expectProblem(await admin.get(`${api}/audit-events?outcome=maybe`), 400, "validation_failed");
    expectProblem(await admin.get(`${api}/audit-events?cursor=aud_x`), 400, "validation_failed");
  });

  it("a case's trail holds its tasks' events; an unknown case is 404, one above clearance 403", async () => {
    const admin = actingAs(client, w.adminKey);
    const trail = await admin.get(`${api}/cases/${caseId}/audit-events`);
    expect((trail.body.data as { action: string }[]).map((e) => e.action)).toEqual(["case.updated", "task.created", "case.created"]);
    expectProblem(await admin.get(`${api}/cases/case_01kaaaaaaaaaaaaaaaaaaaaaaa/audit-events`), 404, "not_found");
    expectProblem(await actingAs(client, auditor).get(`${api}/cases/${caseId}/audit-events`), 403, "tlp_restricted");
  });

  it("values above the reader's clearance are redacted, paths kept; audit:read is needed; another organization sees none of it", async () => {
    const low = await actingAs(client, auditor).get(`${api}/audit-events?action=case.updated`);
    expect(low.body.data[0].changes).toEqual([{ path: "title", before: "[redacted]", after: "[redacted]" }]);
    expectProblem(await actingAs(client, w.keys.readOnly).get(`${api}/audit-events`), 403, "missing_scope");
    const theirs = await actingAs(client, w.other.adminKey).get(`${api}/audit-events?limit=500`);
    expect(JSON.stringify(theirs.body.data)).not.toContain(caseId);
  });

  it("verify answers the chain's verdict", async () => {
    const admin = actingAs(client, w.adminKey);
    const verdict = await admin.get(`${api}/audit-events/verify`);
    expect(verdict.status).toBe(200);
    // Every event here was written alone: one chain row each.
    const events = (await admin.get(`${api}/audit-events?limit=500`)).body.data as unknown[];
    expect(verdict.body).toEqual({ ok: true, checked: events.length, from: { seq: 0, kind: "start" } });
  });
});
