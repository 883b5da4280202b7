import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { version } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { actingAs, expectProblem, transports } from "./http.js";
import type { Answer, Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";

const cases = `${apiBasePath}/cases`;
const neverExisting = "case_01kaaaaaaaaaaaaaaaaaaaaaaa";

describe.each(transports)("cases through $name", ({ open }) => {
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

  it("creates, reads back, changes and lists a case", async () => {
    const admin = as(w.adminKey);
    const created = await admin.post(cases, { ...validCase, tags: [{ name: "phishing", color: "#ff0000" }] });
    expect(created.status).toBe(200);
    expect(created.headers.get("content-type")).toMatch(/^application\/json/);
    expect(created.body).toMatchObject({
      ...validCase,
      organizationId: w.organizationId,
      tlp: 2,
      pap: 2,
      statusValue: "new",
      description: null,
      tags: [{ name: "phishing", color: "#ff0000" }],
      closedAt: null,
    });
    expect(created.body.id).toMatch(/^case_[0-9a-z]{26}$/);
    expect(created.body.number).toBeGreaterThanOrEqual(1);

    const read = await admin.get(`${cases}/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const patched = await admin.patch(`${cases}/${created.body.id}`, { title: "Renamed", description: "Details", statusValue: "in_progress" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, title: "Renamed", description: "Details", statusValue: "in_progress" });

    const cleared = await admin.patch(`${cases}/${created.body.id}`, { description: null });
    expect(cleared.body.description).toBeNull();

    const listed = await admin.get(cases);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
    expect(listed.body).toHaveProperty("nextCursor");
  });

  it("filters lists by repeated parameters and pages with the cursor", async () => {
    const admin = as(w.adminKey);
    const source = `feed-${Math.random().toString(36).slice(2)}`;
    const made: { id: string; severity: number }[] = [];
    for (const severity of [1, 2, 3, 4, 3, 4, 1]) {
      made.push((await admin.post(cases, { title: `sev ${severity}`, severity, source })).body);
    }
    const severe = await admin.get(`${cases}?source=${source}&severity=3&severity=4`);
    expect(severe.status).toBe(200);
    expect(severe.body.data).toHaveLength(4);
    expect(severe.body.data.every((c: { severity: number }) => c.severity >= 3)).toBe(true);

    const single = await admin.get(`${cases}?source=${source}&severity=1`);
    expect(single.body.data).toHaveLength(2);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Answer = await admin.get(`${cases}?source=${source}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((c: { id: string }) => c.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(made.map((c) => c.id).reverse());
  });

  it("walks the status lifecycle and refuses a transition it does not allow with 409", async () => {
    const admin = as(w.adminKey);
    const { body } = await admin.post(cases, validCase);
    const url = `${cases}/${body.id}`;
    expect((await admin.patch(url, { statusValue: "on_hold" })).body.statusValue).toBe("on_hold");
    expect((await admin.patch(url, { statusValue: "resolved" })).body.statusValue).toBe("resolved");
    const closed = await admin.patch(url, { statusValue: "closed" });
    expect(closed.body).toMatchObject({ statusValue: "closed" });
    expect(closed.body.closedAt).toEqual(expect.any(String));
    expectProblem(await admin.patch(url, { statusValue: "on_hold" }), 409, "invalid_transition");
    // A case starts where its lifecycle starts (new or in_progress), never closed.
    expectProblem(await admin.post(cases, { ...validCase, statusValue: "closed" }), 409, "invalid_transition");
  });

  it("answers another organization's case exactly like a case that never existed", async () => {
    const theirs = (await as(w.other.adminKey).post(cases, validCase)).body;
    const admin = as(w.adminKey);
    const foreign = await admin.get(`${cases}/${theirs.id}`);
    const missing = await admin.get(`${cases}/${neverExisting}`);
    expectProblem(foreign, 404, "not_found");
    expectProblem(missing, 404, "not_found");
    const withoutIds = (a: Answer) => ({ ...a.body, detail: String(a.body.detail).replace(/case_[0-9a-z]+/g, "<id>") });
    expect(withoutIds(foreign)).toEqual(withoutIds(missing));
    expectProblem(await admin.patch(`${cases}/${theirs.id}`, { title: "mine now" }), 404, "not_found");
    expect((await admin.get(cases)).body.data.map((c: { id: string }) => c.id)).not.toContain(theirs.id);
    expect((await as(w.other.adminKey).get(`${cases}/${theirs.id}`)).body.title).toBe(validCase.title);
  });

  it("refuses an operation the key has no scope for with 403 missing_scope", async () => {
    const reader = as(w.keys.readOnly);
    expectProblem(await reader.post(cases, validCase), 403, "missing_scope");
    const mine = (await as(w.adminKey).post(cases, validCase)).body;
    expectProblem(await reader.patch(`${cases}/${mine.id}`, { title: "x" }), 403, "missing_scope");
    expect((await reader.get(`${cases}/${mine.id}`)).status).toBe(200);
    expect((await reader.get(cases)).status).toBe(200);
  });

  it("hides cases above the caller's TLP clearance: 403 tlp_restricted on read, absent from lists", async () => {
    const admin = as(w.adminKey);
    const low = as(w.keys.lowClearance);
    const amber = (await admin.post(cases, { ...validCase, tlp: 3, source: "tlp-test" })).body;
    const green = (await admin.post(cases, { ...validCase, tlp: 1, source: "tlp-test" })).body;
    expectProblem(await low.get(`${cases}/${amber.id}`), 403, "tlp_restricted");
    expectProblem(await low.patch(`${cases}/${amber.id}`, { title: "x" }), 403, "tlp_restricted");
    expect((await low.get(`${cases}/${green.id}`)).status).toBe(200);
    const listed = (await low.get(`${cases}?source=tlp-test`)).body.data.map((c: { id: string }) => c.id);
    expect(listed).toContain(green.id);
    expect(listed).not.toContain(amber.id);
    expectProblem(await low.post(cases, { ...validCase, tlp: 2 }), 403, "tlp_restricted");
    expectProblem(await low.patch(`${cases}/${green.id}`, { tlp: 4 }), 403, "tlp_restricted");
  });

  it("answers health to any valid key with status, service, version and timestamp", async () => {
    for (const key of [w.adminKey, w.keys.readOnly, w.keys.lowClearance]) {
      const answer = await as(key).get(`${apiBasePath}/health`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: "ok", service: "casekit", version, timestamp: w.clock.now().toISOString() });
    }
  });
});
