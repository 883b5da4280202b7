// The examples under examples/ run as documented: the core on its own, and the API on node:http.
import { afterEach, describe, expect, it } from "vitest";
import type { Case } from "../../core/index.js";
import { main } from "../../examples/core-without-http.js";
import { start } from "../../examples/node-http.js";

describe("examples/core-without-http", () => {
  it("creates, lists and moves a case through its lifecycle", async () => {
    const { organizationId, created, listed, started, closed } = await main();

    expect(created).toMatchObject({
      number: 1,
      organizationId,
      title: "Phishing wave against finance",
      severity: 3,
      tlp: 2,
      pap: 2,
      statusValue: "new",
      tags: [{ name: "phishing" }],
      closedAt: null,
      createdAt: "2026-03-01T12:00:00.000Z",
    });
    expect(created.id).toMatch(/^case_/);
    expect(created.createdBy).toMatch(/^user_/);
    expect(listed.map((c) => c.id)).toEqual([created.id]);

    expect(started).toMatchObject({ id: created.id, statusValue: "in_progress", closedAt: null, updatedAt: "2026-03-01T12:01:00.000Z" });
    expect(closed).toMatchObject({ id: created.id, number: 1, statusValue: "closed", closedAt: "2026-03-01T12:02:00.000Z" });
  });
});

describe("examples/node-http", () => {
  let running: Awaited<ReturnType<typeof start>> | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it("serves the API on 127.0.0.1 with the printed key", async () => {
    running = await start(0);
    expect(running.port).toBeGreaterThan(0);
    expect(running.server.listening).toBe(true);
    const headers = { Authorization: `Bearer ${running.apiKey}`, "Content-Type": "application/json" };

    const post = await fetch(`${running.url}/api/v1/cases`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "Phishing wave against finance", severity: 3, tags: [{ name: "phishing" }] }),
    });
    expect(post.status).toBe(200);
    expect(post.headers.get("x-request-id")).toBeTruthy();
    const stored = (await post.json()) as Case;
    expect(stored).toMatchObject({
      number: 1,
      organizationId: running.organizationId,
      title: "Phishing wave against finance",
      severity: 3,
      statusValue: "new",
      tags: [{ name: "phishing" }],
    });
    expect(stored.id).toMatch(/^case_/);

    const get = await fetch(`${running.url}/api/v1/cases/${stored.id}`, { headers });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual(stored);

    const anonymous = await fetch(`${running.url}/api/v1/cases`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-type")).toContain("application/problem+json");
    await anonymous.body?.cancel();

    const { server } = running;
    await running.close();
    running = undefined;
    expect(server.listening).toBe(false);
  });
});
