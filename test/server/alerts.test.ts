import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { addUser } from "../helpers/kit.js";
import { actingAs, bearer, expectProblem, transports } from "./http.js";
import type { Answer, Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;
const alerts = `${api}/alerts`;
const neverExistingAlert = "alert_01kaaaaaaaaaaaaaaaaaaaaaaa";

describe.each(transports)("alerts through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  /** An analyst's key with the alert scopes only, TLP clearance 2 (AMBER). */
  let amberKey: string;
  let analystId: string;
  let feed: string;

  beforeAll(async () => {
    w = await makeWorld();
    const amber = await userWithKey(w, { role: "analyst", scopes: ["alerts:read", "alerts:write"], tlpClearance: 2 });
    amberKey = amber.secret;
    analystId = amber.user.id;
    client = await open(w);
  });
  afterAll(async () => {
    await client.close();
  });

  const as = (key: string) => actingAs(client, key);
  /** A source name of its own for each test, so lists and metrics see only that test's alerts. */
  const newFeed = () => (feed = `feed-${Math.random().toString(36).slice(2, 10)}`);
  const report = (sourceRef: string, extra: Record<string, unknown> = {}) => ({ title: `Alert ${sourceRef}`, severity: 2, source: feed, sourceRef, ...extra });

  it("answers 200 with deduplicated: false for a new alert and deduplicated: true for a repeated one (conventions: a create answers 200)", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const created = await admin.post(alerts, report("r-1", { observables: [{ dataType: "ip", data: "198.51.100.7" }] }));
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ deduplicated: false, occurrences: 1, statusValue: "new", source: feed, sourceRef: "r-1", tlp: 2 });
    expect(created.body.observables).toHaveLength(1);
    w.clock.advance(2000);
    const again = await admin.post(alerts, report("r-1", { severity: 4, observables: [{ dataType: "ip", data: "198.51.100.7" }] }));
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ id: created.body.id, deduplicated: true, occurrences: 2, severity: 4 });
    expect(Date.parse(again.body.lastSeenAt)).toBe(Date.parse(created.body.lastSeenAt) + 2000);
    expect(again.body.observables.map((o: { id: string }) => o.id)).toEqual([created.body.observables[0].id]);
    const got = await admin.get(`${alerts}/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("deduplicated");
    expect(got.body.occurrences).toBe(2);
  });

  it("refuses bad bodies and queries with problem+json", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const invalid = await admin.post(alerts, { title: "", severity: 9, source: feed });
    expectProblem(invalid, 400, "validation_failed");
    expect(invalid.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["severity", "title"]);
    expectProblem(await admin.post(alerts, { ...report("x"), occurrences: 5 }), 400, "validation_failed");
    expectProblem(await client.send("POST", alerts, { headers: bearer(w.adminKey), body: "{not json" }), 400, "invalid_json");
    expectProblem(await admin.get(`${alerts}?colour=red`), 400, "validation_failed");
    expectProblem(await admin.get(`${alerts}?severity=7`), 400, "validation_failed");
    expectProblem(await admin.get(`${alerts}/${neverExistingAlert}`), 404, "not_found");
    expectProblem(await as(amberKey).post(alerts, report("red", { tlp: 4 })), 403, "tlp_restricted");
  });

  it("filters the list by query parameters (repeated = any of) and pages by cursor", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const made: { id: string }[] = [];
    for (const [i, severity] of [1, 2, 3, 4, 3, 4, 1].entries()) {
      made.push((await admin.post(alerts, report(`p-${i}`, { severity, title: i % 2 === 0 ? `Beacon to C2 ${i}` : `Login ${i}` }))).body);
    }
    const severe = await admin.get(`${alerts}?source=${feed}&severity=3&severity=4`);
    expect(severe.status, severe.text).toBe(200);
    expect(severe.body.data.map((a: { severity: number }) => a.severity)).toEqual([4, 3, 4, 3]);
    const text = await admin.get(`${alerts}?source=${feed}&q=c2`);
    expect(text.body.data).toHaveLength(4);
    const statuses = await admin.get(`${alerts}?source=${feed}&statusValue=new&statusValue=closed&severity=1`);
    expect(statuses.body.data).toHaveLength(2);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Answer = await admin.get(`${alerts}?source=${feed}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.data.map((a: { id: string }) => a.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(made.map((a) => a.id).reverse());
  });

  it("leaves alerts above the key's clearance out of the list and answers 403 on them", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const red = (await admin.post(alerts, report("red", { tlp: 4 }))).body;
    const amber = (await admin.post(alerts, report("amber", { tlp: 2 }))).body;
    const list = await as(amberKey).get(`${alerts}?source=${feed}`);
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([amber.id]);
    expectProblem(await as(amberKey).get(`${alerts}/${red.id}`), 403, "tlp_restricted");
    expectProblem(await as(amberKey).patch(`${alerts}/${red.id}`, { title: "x" }), 403, "tlp_restricted");
    expectProblem(await as(amberKey).delete(`${alerts}/${red.id}`), 403, "tlp_restricted");
  });

  it("walks the lifecycle and refuses a transition it does not allow with 409", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const alert = (await admin.post(alerts, report("l-1"))).body;
    const acked = await as(amberKey).patch(`${alerts}/${alert.id}`, { statusValue: "acknowledged", assigneeId: analystId });
    expect(acked.status, acked.text).toBe(200);
    expect(acked.body).toMatchObject({ statusValue: "acknowledged", assigneeId: analystId });
    expectProblem(await admin.patch(`${alerts}/${alert.id}`, { statusValue: "imported" }), 409, "invalid_transition");
    expectProblem(await admin.patch(`${alerts}/${alert.id}`, { statusValue: "bogus" }), 400, "unknown_status");
    expectProblem(await admin.patch(`${alerts}/${alert.id}`, {}), 400, "validation_failed");
  });

  it("soft-deletes (then GET is 404, lists and metrics leave it out) and restores for an admin", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const alert = (await admin.post(alerts, report("d-1"))).body;
    const deleted = await as(amberKey).delete(`${alerts}/${alert.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.deletedAt).not.toBeNull();
    expectProblem(await admin.get(`${alerts}/${alert.id}`), 404, "not_found");
    expectProblem(await admin.delete(`${alerts}/${alert.id}`), 404, "not_found");
    expect((await admin.get(`${alerts}?source=${feed}`)).body.data).toEqual([]);
    expect((await admin.get(`${api}/metrics/alerts/source`)).body.data.find((r: { source: string }) => r.source === feed)).toBeUndefined();
    expect((await admin.get(`${alerts}?source=${feed}&includeDeleted=true`)).body.data.map((a: { id: string }) => a.id)).toEqual([alert.id]);
    expectProblem(await as(amberKey).get(`${alerts}?includeDeleted=true`), 403, "missing_scope");

    expectProblem(await as(amberKey).post(`${alerts}/${alert.id}/restore`, undefined), 403, "missing_scope");
    const restored = await client.send("POST", `${alerts}/${alert.id}/restore`, { headers: bearer(w.adminKey) });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ id: alert.id, deletedAt: null });
    expect((await admin.get(`${alerts}/${alert.id}`)).status).toBe(200);
    expectProblem(await client.send("POST", `${alerts}/${alert.id}/restore`, { headers: bearer(w.adminKey) }), 409, "conflict");
  });

  it("promotes an alert to a case and merges another into it", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const first = (await admin.post(alerts, report("m-1", { tags: [{ name: "c2" }], observables: [{ dataType: "domain", data: "evil.example" }] }))).body;
    const promoted = await admin.post(`${alerts}/${first.id}/promote`, { severity: 4 });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.case).toMatchObject({ title: first.title, severity: 4, source: feed, sourceRef: "m-1", tags: [{ name: "c2" }] });
    expect(promoted.body.alert).toMatchObject({ statusValue: "imported", caseId: promoted.body.case.id });
    expect(promoted.body.observables.created).toHaveLength(1);
    expectProblem(await admin.post(`${alerts}/${first.id}/promote`, {}), 409, "conflict");

    const second = (await admin.post(alerts, report("m-2", { tags: [{ name: "dns" }], observables: [{ dataType: "domain", data: "EVIL.example" }] }))).body;
    const merged = await admin.post(`${alerts}/${second.id}/merge`, { caseId: promoted.body.case.id });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.case.tags).toEqual([{ name: "c2" }, { name: "dns" }]);
    expect(merged.body.observables.created).toEqual([]);
    expect(merged.body.alert).toMatchObject({ statusValue: "imported", caseId: promoted.body.case.id });

    const red = (await admin.post(`${api}/cases`, { ...validCase, tlp: 4 })).body;
    const third = (await admin.post(alerts, report("m-3", { tlp: 1 }))).body;
    const amberBoth = (await userWithKey(w, { role: "analyst", scopes: ["alerts:read", "alerts:write", "cases:write"], tlpClearance: 2 })).secret;
    expectProblem(await as(amberBoth).post(`${alerts}/${third.id}/merge`, { caseId: red.id }), 403, "tlp_restricted");
    expectProblem(await as(amberKey).post(`${alerts}/${third.id}/merge`, { caseId: red.id }), 403, "missing_scope");
    expectProblem(await admin.post(`${alerts}/${third.id}/merge`, { caseId: "case_01kaaaaaaaaaaaaaaaaaaaaaaa" }), 404, "not_found");
  });

  it("counts alerts per source with range and repeated status filters", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const started = w.clock.now().toISOString();
    await admin.post(alerts, report("s-1"));
    const closed = (await admin.post(alerts, report("s-2"))).body;
    await admin.patch(`${alerts}/${closed.id}`, { statusValue: "closed" });
    await admin.post(alerts, report("s-3", { tlp: 4 }));
    w.clock.advance(60_000);
    const later = w.clock.now().toISOString();
    await admin.post(alerts, report("s-4"));
    const count = async (key: string, query: string) => {
      const answer = await as(key).get(`${api}/metrics/alerts/source${query}`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data.find((r: { source: string }) => r.source === feed)?.count ?? 0;
    };
    expect(await count(w.adminKey, "")).toBe(4);
    expect(await count(amberKey, "")).toBe(3);
    expect(await count(w.adminKey, "?statusValue=new")).toBe(3);
    expect(await count(w.adminKey, "?statusValue=new&statusValue=closed")).toBe(4);
    expect(await count(w.adminKey, `?from=${encodeURIComponent(started)}&to=${encodeURIComponent(later)}`)).toBe(3);
    expect(await count(w.adminKey, `?from=${encodeURIComponent(later)}`)).toBe(1);
    // A reversed range is empty (as the lists' createdAfter/createdBefore are), not a refusal the document could not state.
    expect(await count(w.adminKey, `?from=${encodeURIComponent(later)}&to=${encodeURIComponent(started)}`)).toBe(0);
    expectProblem(await admin.get(`${api}/metrics/alerts/source?bogus=1`), 400, "validation_failed");
    // Another organization sees none of them.
    expect(await count(w.other.adminKey, "")).toBe(0);
  });

  it("bulk-assigns by ids and by selectAll with filters, and refuses an inactive assignee", async () => {
    newFeed();
    const admin = as(w.adminKey);
    const made: { id: string }[] = [];
    for (const severity of [1, 3, 3]) made.push((await admin.post(alerts, report(`b-${made.length}`, { severity }))).body);
    const red = (await admin.post(alerts, report("b-red", { tlp: 4, severity: 3 }))).body;
    const bulk = `${api}/bulk/alerts/assign`;

    const byIds = await as(amberKey).post(bulk, { ids: [made[0]!.id, red.id, neverExistingAlert], assigneeId: analystId });
    expect(byIds.status, byIds.text).toBe(200);
    expect(byIds.body).toMatchObject({ matched: 3, assigned: 1 });
    expect(byIds.body.bulkRequestId).toMatch(/^bulk_/);
    expect(byIds.body.skipped).toEqual(expect.arrayContaining([{ id: red.id, code: "tlp_restricted" }, { id: neverExistingAlert, code: "not_found" }]));
    expect((await admin.get(`${alerts}/${made[0]!.id}`)).body.assigneeId).toBe(analystId);

    const all = await as(amberKey).post(bulk, { assigneeId: analystId, options: { selectAll: true, filters: { source: feed, severity: [3] } } });
    expect(all.status, all.text).toBe(200);
    expect(all.body).toMatchObject({ matched: 2, assigned: 2, skipped: [] });
    for (const a of made.slice(1)) expect((await admin.get(`${alerts}/${a.id}`)).body.assigneeId).toBe(analystId);
    expect((await admin.get(`${alerts}/${red.id}`)).body.assigneeId).toBeNull();

    const disabled = await addUser(w.kit, w.organizationId, { status: "disabled" });
    const refused = await admin.post(bulk, { ids: [red.id], assigneeId: disabled.id });
    expectProblem(refused, 422, "unknown_reference"); // a well-formed id of a user who cannot be assigned
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: "assigneeId" })]);
    expectProblem(await admin.post(bulk, { ids: [red.id], assigneeId: analystId, options: { selectAll: true } }), 400, "validation_failed");
    expectProblem(await admin.post(bulk, { assigneeId: analystId, options: { selectAll: true, filters: { includeDeleted: true } } }), 400, "validation_failed");
    expect((await admin.get(`${alerts}/${red.id}`)).body.assigneeId).toBeNull();
    // Another organization's key reaches none of these alerts.
    const foreign = await as(w.other.adminKey).post(bulk, { ids: [made[0]!.id], assigneeId: w.other.admin.userId });
    expect(foreign.body).toMatchObject({ matched: 1, assigned: 0, skipped: [{ id: made[0]!.id, code: "not_found" }] });
  });
});
