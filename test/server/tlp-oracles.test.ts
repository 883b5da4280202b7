/**
 * Issue 12, item 10: no answer tells a caller that a record above their clearance, or another
 * tenant, exists. Each path of the attack report, over HTTP: the answer for a hidden record is the
 * answer for one that never existed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { allScopes } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { bearer, inProcess } from "./http.js";
import type { Answer, Transport } from "./http.js";
import { makeWorld, userWithKey } from "./world.js";
import type { World } from "./world.js";

/** The answer with what differs between any two records (ids, references, times) set aside. */
function shape(answer: Answer, ...varying: string[]): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([key]) => !["id", "createdAt", "updatedAt", "lastSeenAt", "alertId", "caseId", ...varying].includes(key))
        .map(([key, v]) => [key, strip(v)]),
    );
  };
  return { status: answer.status, type: answer.headers.get("content-type"), body: strip(answer.body) };
}

describe("no existence oracle for records above the caller's clearance", () => {
  let w: World;
  let client: Transport;
  let low: string;
  const send = (method: string, path: string, key: string, body?: unknown) => client.send(method, apiBasePath + path, { headers: bearer(key), body });

  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    low = (await userWithKey(w, { role: "admin", scopes: [...allScopes], tlpClearance: 1 })).secret;
  });

  it("ingesting the reference of a RED alert answers as for a new reference: an alert of the caller's own; the RED one is untouched", async () => {
    const red = await w.kit.alerts.create(w.admin, { title: "RED intrusion", source: "edr", sourceRef: "host-7/evt-1", severity: 4, tlp: 4 });
    const report = { title: "Seen by tier 1", source: "edr", severity: 2, tlp: 1 };
    const hidden = await send("POST", "/alerts", low, { ...report, sourceRef: "host-7/evt-1" });
    const unknown = await send("POST", "/alerts", low, { ...report, sourceRef: "host-7/evt-never" });
    expect(hidden.status, hidden.text).toBe(200);
    expect(shape(hidden, "sourceRef")).toEqual(shape(unknown, "sourceRef"));
    expect(hidden.body).toMatchObject({ deduplicated: false, occurrences: 1, tlp: 1, sourceRef: "host-7/evt-1" });
    expect(hidden.body.id).not.toBe(red.id);
    expect(await w.kit.alerts.get(w.admin, red.id)).toMatchObject({ title: "RED intrusion", occurrences: 1, tlp: 4 });
    // The RED alert's own source keeps folding its reports, for those who may see it.
    expect(await w.kit.alerts.create(w.admin, { ...report, sourceRef: "host-7/evt-1", tlp: 4 })).toMatchObject({ id: red.id, deduplicated: true });
  });

  it("adding a value a case holds at RED answers as for a new value: a record of the caller's own", async () => {
    const green = await w.kit.cases.create(w.admin, { title: "GREEN case", severity: 2, tlp: 1 });
    const red = await w.kit.observables.create(w.admin, { kind: "case", id: green.id }, { dataType: "domain", data: "red-c2.example", tlp: 4, message: "RED note" });
    const hidden = await send("POST", `/cases/${green.id}/observables`, low, { dataType: "domain", data: "red-c2.example" });
    const unknown = await send("POST", `/cases/${green.id}/observables`, low, { dataType: "domain", data: "never-seen.example" });
    expect(hidden.status, hidden.text).toBe(200);
    expect(shape(hidden, "data")).toEqual(shape(unknown, "data"));
    expect(hidden.body).toMatchObject({ deduplicated: false, tlp: 1, message: null });
    expect(hidden.text).not.toContain("RED note");
    expect((await w.kit.observables.get(w.admin, red.id)).message).toBe("RED note");
  });

  it("the TLP audit log shows a clearance-1 reader no RED record and no marking above 1; verify still checks the whole chain", async () => {
    const red = await w.kit.cases.create(w.admin, { title: "RED", severity: 2, tlp: 4 });
    const task = await w.kit.tasks.create(w.admin, red.id, { title: "CLEAR task of a RED case", tlp: 0 });
    await send("GET", `/cases/${red.id}`, w.adminKey);
    await send("GET", `/tasks/${task.id}`, w.adminKey);
    await send("GET", `/tasks/${task.id}`, low); // refused: the denial is RED too
    const seen = await send("GET", "/tlp/audit-logs?limit=500", low);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.text).not.toContain(red.id);
    expect(seen.text).not.toContain(task.id);
    for (const entry of seen.body.data) expect(Math.max(entry.tlpBefore ?? 0, entry.tlpAfter ?? 0)).toBeLessThanOrEqual(1);
    const everything = await send("GET", "/tlp/audit-logs?limit=500", w.adminKey);
    expect(everything.text).toContain(task.id);
    const verified = await send("GET", "/tlp/audit-logs/verify", low);
    expect(verified.body).toEqual((await send("GET", "/tlp/audit-logs/verify", w.adminKey)).body);
    expect(verified.body).toMatchObject({ ok: true });
  });
});

describe("no existence oracle for other tenants when sharing cases", () => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
    await w.kit.organizations.updatePolicy(w.admin, { allowCaseSharing: true });
  });
  const send = (method: string, path: string, key: string, body?: unknown) => client.send(method, apiBasePath + path, { headers: bearer(key), body });

  it("sharing with a real organization that accepts no shared cases answers exactly what an unknown organization id does", async () => {
    const real = await send("POST", "/cases", w.adminKey, { title: "Shared?", severity: 2, organizations: [w.other.organizationId] });
    const unknown = await send("POST", "/cases", w.adminKey, { title: "Shared?", severity: 2, organizations: ["org_01kaaaaaaaaaaaaaaaaaaaaaaa"] });
    // A bad reference in the body (which code says so is the validation layer's), never 403.
    expect(real.status, real.text).toBeGreaterThanOrEqual(400);
    expect(real.status).not.toBe(403);
    expect({ status: real.status, body: real.body }).toEqual({ status: unknown.status, body: unknown.body });
    expect(real.text).not.toContain(w.other.organizationId);
  });

  it("a case shared while the receiver's policy says no answers the receiver exactly as an unknown case id", async () => {
    await w.kit.organizations.updatePolicy(w.other.admin, { allowCaseSharing: true });
    const shared = await w.kit.cases.create(w.admin, { title: "Shared", severity: 2, tlp: 1, organizations: [w.other.organizationId] });
    expect((await send("GET", `/cases/${shared.id}`, w.other.adminKey)).status).toBe(200);
    await w.kit.organizations.updatePolicy(w.other.admin, { allowCaseSharing: false });
    const off = await send("GET", `/cases/${shared.id}`, w.other.adminKey);
    const unknown = await send("GET", "/cases/case_01kaaaaaaaaaaaaaaaaaaaaaaa", w.other.adminKey);
    expect(off.status).toBe(404);
    expect({ ...off.body, detail: off.body.detail.replace(shared.id, "<id>") }).toEqual({ ...unknown.body, detail: unknown.body.detail.replace("case_01kaaaaaaaaaaaaaaaaaaaaaaa", "<id>") });
  });
});
