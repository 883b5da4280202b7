import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { actingAs, bearer, expectProblem, transports } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;
const neverExistingCase = "case_01kaaaaaaaaaaaaaaaaaaaaaaa";
const neverExistingObservable = "obs_01kaaaaaaaaaaaaaaaaaaaaaaa";

describe.each(transports)("observables through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  let caseId: string;
  let otherCaseId: string;
  /** An analyst's key with both observable scopes and TLP clearance 1 (GREEN). */
  let greenKey: string;
  beforeAll(async () => {
    w = await makeWorld();
    greenKey = (await userWithKey(w, { role: "analyst", scopes: ["observables:read", "observables:write"], tlpClearance: 1 })).secret;
    client = await open(w);
    caseId = (await w.kit.cases.create(w.admin, { ...validCase, tlp: 1 })).id;
    otherCaseId = (await w.kit.cases.create(w.admin, { ...validCase, title: "Second wave", tlp: 2 })).id;
  });
  afterAll(async () => {
    await client.close();
  });

  const as = (key: string) => actingAs(client, key);
  const nested = (id: string) => `${api}/cases/${id}/observables`;

  it("adds, reads back, changes, lists and soft-deletes an observable of a case", async () => {
    const admin = as(w.adminKey);
    const created = await admin.post(nested(caseId), { dataType: "ip", data: " 2001:DB8::0:1 ", ioc: true, tags: [{ name: "c2" }], message: "beacon" });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      organizationId: w.organizationId,
      caseId,
      alertId: null,
      dataType: "ip",
      data: "2001:db8::1",
      tlp: 1,
      pap: 2,
      ioc: true,
      sighted: false,
      tags: [{ name: "c2" }],
      message: "beacon",
      deletedAt: null,
      deletedBy: null,
      deduplicated: false,
    });
    const id: string = created.body.id;
    expect(id).toMatch(/^obs_[0-9a-z]{26}$/);

    const read = await admin.get(`${api}/observables/${id}`);
    expect(read.status).toBe(200);
    const { deduplicated: _, ...record } = created.body;
    expect(read.body).toEqual(record);

    const changed = await admin.patch(`${api}/observables/${id}`, { sighted: true, message: null });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id, sighted: true, message: null, ioc: true });

    const listed = await admin.get(nested(caseId));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [changed.body], nextCursor: null });

    const deleted = await admin.delete(`${api}/observables/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ id, deletedBy: w.admin.userId });
    expect(deleted.body.deletedAt).toEqual(expect.any(String));
    expectProblem(await admin.get(`${api}/observables/${id}`), 404, "not_found");
    expectProblem(await admin.delete(`${api}/observables/${id}`), 404, "not_found");
    expect((await admin.get(nested(caseId))).body.data).toEqual([]);
    expect((await admin.get(`${api}/observables?data=2001:db8::1`)).body.data).toEqual([]);
  });

  it("a value the case already has answers that record with deduplicated: true", async () => {
    const admin = as(w.adminKey);
    const first = await admin.post(nested(caseId), { dataType: "domain", data: "dedupe.example", tags: [{ name: "phish" }] });
    const second = await admin.post(nested(caseId), { dataType: "domain", data: "DEDUPE.example.", sighted: true, tags: [{ name: "wave-2" }] });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, deduplicated: true, sighted: true, tags: [{ name: "phish" }, { name: "wave-2" }] });
    const listed = await admin.get(`${nested(caseId)}?dataType=domain&data=dedupe.example`);
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([first.body.id]);
  });

  it("GET /observables?data= finds a value across cases, after normalisation, and never another organization's", async () => {
    const admin = as(w.adminKey);
    const a = await admin.post(nested(caseId), { dataType: "hash", data: "44D88612FEA8A8F36DE82E1278ABB02F" });
    const b = await admin.post(nested(otherCaseId), { dataType: "hash", data: "44d88612fea8a8f36de82e1278abb02f", ioc: true });
    const theirs = await w.kit.cases.create(w.other.admin, validCase);
    await w.kit.observables.create(w.other.admin, { kind: "case", id: theirs.id }, { dataType: "hash", data: "44d88612fea8a8f36de82e1278abb02f" });

    const seen = await admin.get(`${api}/observables?data=44D88612FEA8A8F36DE82E1278ABB02F`);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.data.map((o: { id: string; caseId: string }) => [o.id, o.caseId])).toEqual([
      [b.body.id, otherCaseId],
      [a.body.id, caseId],
    ]);
    expect(seen.body.nextCursor).toBeNull();
    const iocOnly = await admin.get(`${api}/observables?data=44d88612fea8a8f36de82e1278abb02f&ioc=true`);
    expect(iocOnly.body.data.map((o: { id: string }) => o.id)).toEqual([b.body.id]);
    const bothCases = await admin.get(`${api}/observables?dataType=hash&caseId=${caseId}&caseId=${otherCaseId}&limit=1`);
    expect(bothCases.body.data).toHaveLength(1);
    const next = await admin.get(`${api}/observables?dataType=hash&caseId=${caseId}&caseId=${otherCaseId}&limit=1&cursor=${bothCases.body.nextCursor}`);
    expect([...bothCases.body.data, ...next.body.data].map((o: { id: string }) => o.id)).toEqual([b.body.id, a.body.id]);

    const other = await client.send("GET", `${api}/observables?data=44d88612fea8a8f36de82e1278abb02f`, { headers: bearer(w.other.adminKey) });
    expect(other.body.data).toHaveLength(1);
    expect(other.body.data[0].organizationId).toBe(w.other.organizationId);
  });

  it("bad input is a 400 problem with the field's path, and nothing is written", async () => {
    const admin = as(w.adminKey);
    const before = (await admin.get(`${api}/observables?limit=500`)).body.data.length;
    const bodies: [unknown, string][] = [
      [{ dataType: "ip", data: "300.1.1.1" }, "data"],
      [{ dataType: "url", data: "javascript:alert(1)" }, "data"],
      [{ dataType: "mail", data: "not-an-address" }, "data"],
      [{ dataType: "Bad Type", data: "x" }, "dataType"],
      [{ dataType: "ip", data: "192.0.2.1", caseId: otherCaseId }, "caseId"],
      [{ dataType: "ip", data: "192.0.2.1", tlp: 9 }, "tlp"],
    ];
    for (const [body, path] of bodies) {
      const answer = await admin.post(nested(caseId), body);
      expectProblem(answer, 400, "validation_failed");
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expectProblem(await admin.patch(`${api}/observables/${neverExistingObservable}`, { data: "x" }), 400, "validation_failed");
    expectProblem(await admin.get(`${api}/observables?colour=red`), 400, "validation_failed");
    expectProblem(await admin.get(`${api}/observables?ioc=maybe`), 400, "validation_failed");
    expectProblem(await admin.get(`${nested(caseId)}?alertId=alert_01kaaaaaaaaaaaaaaaaaaaaaaa`), 400, "validation_failed");
    expect((await admin.get(`${api}/observables?limit=500`)).body.data.length).toBe(before);
  });

  it("an unknown case and another organization's case are 404 alike on the nested routes", async () => {
    const other = as(w.other.adminKey);
    for (const answer of [
      await other.post(nested(caseId), { dataType: "ip", data: "192.0.2.1" }),
      await other.get(nested(caseId)),
      await as(w.adminKey).post(nested(neverExistingCase), { dataType: "ip", data: "192.0.2.1" }),
      await as(w.adminKey).get(nested(neverExistingCase)),
    ]) {
      expectProblem(answer, 404, "not_found");
    }
  });

  it("TLP: a clearance-1 key is refused above its level and the lists leave those records out", async () => {
    const low = as(greenKey);
    const amberObservable = await as(w.adminKey).post(nested(caseId), { dataType: "fqdn", data: "amber.example", tlp: 2 });
    expectProblem(await low.get(`${api}/observables/${amberObservable.body.id}`), 403, "tlp_restricted");
    expectProblem(await low.patch(`${api}/observables/${amberObservable.body.id}`, { ioc: true }), 403, "tlp_restricted");
    expectProblem(await low.post(nested(otherCaseId), { dataType: "ip", data: "192.0.2.77" }), 403, "tlp_restricted");
    expectProblem(await low.get(nested(otherCaseId)), 403, "tlp_restricted");
    expectProblem(await low.post(nested(caseId), { dataType: "ip", data: "192.0.2.78", tlp: 2 }), 403, "tlp_restricted");
    const listed = await low.get(`${api}/observables?limit=500`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeGreaterThan(0);
    expect(listed.body.data.every((o: { tlp: number; caseId: string }) => o.tlp <= 1 && o.caseId === caseId)).toBe(true);
    const green = await low.post(nested(caseId), { dataType: "ip", data: "192.0.2.79" });
    expect(green.status, green.text).toBe(200);
    expect(green.body.tlp).toBe(1);
  });

  it("a key with cases:read only may not read observables", async () => {
    expectProblem(await as(w.keys.readOnly).get(`${api}/observables`), 403, "missing_scope");
  });
});
