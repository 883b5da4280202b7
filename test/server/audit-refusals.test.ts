/**
 * Refusals through the host: a missing scope or a TLP denial on any API route is a
 * `request.denied` audit event on the operation, and a failed key authentication a
 * `key.authentication_failed` one, aggregated per window (core/audit/refusals.ts).
 */
import { describe, expect, it } from "vitest";
import { refusalWindowMs } from "../../core/index.js";
import type { AuditEvent } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { bearer, inProcess } from "./http.js";
import { makeWorld, validCase } from "./world.js";

const changeOf = (event: AuditEvent, path: string) => event.changes.find((c) => c.path === path)?.after;

describe("refusals through the host are audited", () => {
  it("a missing scope, a TLP denial and a revoked key each write one event, their repeats one counted event", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const as = (key: string) => ({ headers: bearer(key) });
    const red = await client.send("POST", `${apiBasePath}/cases`, { ...as(w.adminKey), body: { ...validCase, tlp: 4 } });
    expect(red.status).toBe(200);

    const first = await client.send("POST", `${apiBasePath}/cases`, { ...as(w.keys.readOnly), body: validCase });
    expect(first.body.code).toBe("missing_scope");
    for (let i = 0; i < 2; i++) expect((await client.send("POST", `${apiBasePath}/cases`, { ...as(w.keys.readOnly), body: validCase })).body.code).toBe("missing_scope");
    expect((await client.send("GET", `${apiBasePath}/cases/${red.body.id}`, as(w.keys.lowClearance))).body.code).toBe("tlp_restricted");
    const revoked = await client.send("GET", `${apiBasePath}/cases`, as(w.keys.revoked));
    expect(revoked.body.code).toBe("key_revoked");
    await client.send("GET", `${apiBasePath}/cases`, as(w.keys.revoked));

    const denied = async () => ((await client.send("GET", `${apiBasePath}/audit-events?outcome=denied`, as(w.adminKey))).body.data as AuditEvent[]).reverse();
    let events = await denied();
    expect(events.map((e) => [e.action, e.target.type, e.target.id, changeOf(e, "reason"), changeOf(e, "count")])).toEqual([
      ["request.denied", "operation", "createCase", "missing_scope", 1],
      ["request.denied", "operation", "getCase", "tlp_restricted", 1],
      ["key.authentication_failed", "key", expect.stringMatching(/^key_/), "key_revoked", 1],
    ]);
    // The first of a kind carries its request: the id the refused answer was given.
    expect(events[0]!.requestId).toBe(first.headers.get("x-request-id"));
    expect(events[2]!.requestId).toBe(revoked.headers.get("x-request-id"));
    expect(events[0]!.actor.type).toBe("apiKey");

    // The window closes: the host's flush writes each kind's repeats as one event.
    w.clock.advance(refusalWindowMs);
    await w.kit.refusals.flush();
    events = await denied();
    expect(events.slice(3).map((e) => [e.action, changeOf(e, "reason"), changeOf(e, "count")])).toEqual([
      ["request.denied", "missing_scope", 2],
      ["key.authentication_failed", "key_revoked", 1],
    ]);
    expect((await client.send("GET", `${apiBasePath}/audit-events/verify`, as(w.adminKey))).body.ok).toBe(true);
  });
});
