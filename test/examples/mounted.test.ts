// examples/express.ts, hono.ts and fastify.ts: casekit under /security of an existing app.
import { afterEach, describe, expect, it } from "vitest";
import * as express from "../../examples/express.js";
import * as fastify from "../../examples/fastify.js";
import * as hono from "../../examples/hono.js";
import { createCaseKitClient } from "../../server/client/index.js";

const examples = [
  { name: "express", start: express.start, notFoundType: "text/html" },
  { name: "hono", start: hono.start, notFoundType: "text/plain" },
  { name: "fastify", start: fastify.start, notFoundType: "application/json" },
];

describe.each(examples)("examples/$name", ({ name, start, notFoundType }) => {
  let running: Awaited<ReturnType<typeof start>> | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it("serves the API under /security beside the app's own routes", async () => {
    running = await start(0);
    const { url, apiBaseUrl, apiKey, organizationId } = running;
    expect(apiBaseUrl).toBe(`${url}/security/api/v1`);
    const headers = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };

    // The typed client, with the prefix in its base URL.
    const client = createCaseKitClient({ baseUrl: apiBaseUrl, apiKey });
    const post = await client.POST("/cases", { body: { title: "Phishing wave", severity: 3, tags: [{ name: "phishing" }] } });
    expect(post.response.status).toBe(200);
    expect(post.response.headers.get("x-request-id")).toMatch(/^req_/);
    const created = post.data!;
    expect(created).toMatchObject({ number: 1, organizationId, title: "Phishing wave", statusValue: "new", tags: [{ name: "phishing" }] });

    const patch = await client.PATCH("/cases/{id}", { params: { path: { id: created.id } }, body: { statusValue: "in_progress" } });
    expect(patch.data).toMatchObject({ id: created.id, statusValue: "in_progress" });
    const list = await client.GET("/cases", { params: { query: { statusValue: ["in_progress"] } } });
    expect(list.data!.data.map((c) => c.id)).toEqual([created.id]);
    const missing = await client.GET("/cases/{id}", { params: { path: { id: "case_00000000000000000000000000" } } });
    expect(missing.error).toMatchObject({ status: 404, code: "not_found" });

    // casekit's own rules hold behind the prefix: no key, 401 problem; a bad body, 400 problem.
    const anonymous = await fetch(`${apiBaseUrl}/cases`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { code: string }).code).toBe("missing_credentials");
    const invalid = await fetch(`${apiBaseUrl}/cases`, { method: "POST", headers, body: "{not json" });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { code: string }).code).toBe("invalid_json");

    // The API document names the prefix the framework mounted casekit under.
    const document = await fetch(`${apiBaseUrl}/openapi.json`);
    expect(((await document.json()) as { servers: unknown }).servers).toEqual([{ url: "/security/api/v1" }]);

    const probe = await fetch(`${url}/security/livez`);
    expect(await probe.json()).toEqual({ status: "ok" });
    const unknownInside = await fetch(`${url}/security/nothing-here`);
    expect(unknownInside.status).toBe(404);
    expect(unknownInside.headers.get("content-type")).toContain("application/problem+json");
    await unknownInside.body?.cancel();

    // The host app's own routes and its own not-found handling are untouched.
    const hello = await fetch(`${url}/hello`);
    expect(await hello.json()).toEqual({ hello: `from ${name}` });
    const unknownOutside = await fetch(`${url}/nothing-here`);
    expect(unknownOutside.status).toBe(404);
    expect(unknownOutside.headers.get("content-type")).toContain(notFoundType);
    expect(unknownOutside.headers.get("x-request-id")).toBeNull();
    await unknownOutside.body?.cancel();

    // And its body limit: 413 (last, since a server may close a connection whose body it did not read).
    const huge = await fetch(`${apiBaseUrl}/cases`, { method: "POST", headers, body: JSON.stringify({ title: "x", severity: 1, description: "a".repeat(2 * 1024 * 1024) }) });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { code: string }).code).toBe("payload_too_large");
  });
});
