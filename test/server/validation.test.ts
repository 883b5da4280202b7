import type { H3 } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath, createCaseKitApp } from "../../server/index.js";
import { bearer, inProcess, listening, sendRaw } from "./http.js";
import type { Answer, Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";

const cases = `${apiBasePath}/cases`;

function expectProblem(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.body).toMatchObject({ status, code, type: `https://casekit.dev/problems/${code}` });
}

function expectInvalid(answer: Answer, path: string): void {
  expectProblem(answer, 400, "validation_failed");
  expect(answer.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  for (const error of answer.body.errors) {
    expect(typeof error.message).toBe("string");
  }
}

describe("request validation (spec section 2.1 limits)", () => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
  });

  const create = (body: unknown, headers = bearer(w.adminKey)) => client.send("POST", cases, { headers, body });

  it("accepts the boundaries: title of 1 and 500 characters, severity 1 and 4, tlp 0 and 4, pap 0 and 3", async () => {
    for (const body of [
      { title: "x", severity: 1, tlp: 0, pap: 0 },
      { title: "x".repeat(500), severity: 4, tlp: 4, pap: 3 },
    ]) {
      const answer = await create(body);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject(body);
    }
  });

  it("refuses a title of 0 or 501 characters", async () => {
    expectInvalid(await create({ ...validCase, title: "" }), "title");
    expectInvalid(await create({ ...validCase, title: "x".repeat(501) }), "title");
    expectInvalid(await create({ severity: 2 }), "title");
  });

  it("refuses severity 0, 5, 2.5 and the string \"3\"", async () => {
    for (const severity of [0, 5, 2.5, "3"]) expectInvalid(await create({ ...validCase, severity }), "severity");
    // Left out with no case type to give a default: its own code (the schema makes severity
    // optional since types carry defaultSeverity; the refusal depends on stored types).
    expectProblem(await create({ title: "no severity" }), 400, "severity_required");
  });

  it("refuses tlp -1 and 5, pap 4", async () => {
    expectInvalid(await create({ ...validCase, tlp: -1 }), "tlp");
    expectInvalid(await create({ ...validCase, tlp: 5 }), "tlp");
    expectInvalid(await create({ ...validCase, pap: 4 }), "pap");
  });

  it("refuses unknown and server-owned fields instead of dropping them", async () => {
    const answer = await create({ ...validCase, organizationId: w.other.organizationId, bogus: 1 });
    expectProblem(answer, 400, "validation_failed");
    const paths = answer.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["organizationId", "bogus"]));
  });

  it("lists every invalid field, with paths into nested values", async () => {
    const answer = await create({ title: "", severity: 9, tags: [{ name: "ok" }, { name: "bad", color: "red" }] });
    expectProblem(answer, 400, "validation_failed");
    const paths = answer.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["title", "severity", "tags.1.color"]));
  });

  it("refuses a patch that changes nothing or sets a bad value", async () => {
    const created = await create(validCase);
    const url = `${cases}/${created.body.id}`;
    expectProblem(await client.send("PATCH", url, { headers: bearer(w.adminKey), body: {} }), 400, "validation_failed");
    expectInvalid(await client.send("PATCH", url, { headers: bearer(w.adminKey), body: { severity: 7 } }), "severity");
    expectInvalid(await client.send("PATCH", url, { headers: bearer(w.adminKey), body: { id: "case_x" } }), "");
  });

  it("answers malformed JSON with 400 invalid_json, without quoting the body", async () => {
    const answer = await create('{"title": "secret-ish text", severity: }');
    expectProblem(answer, 400, "invalid_json");
    expect(answer.text).not.toContain("secret-ish");
  });

  it("answers an empty body with 400 validation_failed", async () => {
    expectProblem(await create(""), 400, "validation_failed");
    expectProblem(await client.send("POST", cases, { headers: bearer(w.adminKey) }), 400, "validation_failed");
    expectProblem(await create("   \n"), 400, "validation_failed");
  });

  it("answers a non-empty body without Content-Type with 415", async () => {
    const response = await w.app.fetch(
      new Request(`http://casekit.test${cases}`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.adminKey}` },
        body: new TextEncoder().encode(JSON.stringify(validCase)),
      }),
    );
    expect(response.status).toBe(415);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answers a body that is not JSON with 415", async () => {
    const text = [...bearer(w.adminKey), ["Content-Type", "text/plain"]] as [string, string][];
    expectProblem(await client.send("POST", cases, { headers: text, body: JSON.stringify(validCase) }), 415, "unsupported_media_type");
    const form = [...bearer(w.adminKey), ["Content-Type", "application/x-www-form-urlencoded"]] as [string, string][];
    expectProblem(await client.send("POST", cases, { headers: form, body: "title=x&severity=1" }), 415, "unsupported_media_type");
    const latin1 = [...bearer(w.adminKey), ["Content-Type", "application/json; charset=iso-8859-1"]] as [string, string][];
    expectProblem(await client.send("POST", cases, { headers: latin1, body: JSON.stringify(validCase) }), 415, "unsupported_media_type");
  });

  it("accepts application/json with a UTF-8 charset and +json types", async () => {
    const utf8 = [...bearer(w.adminKey), ["Content-Type", "application/json; charset=UTF-8"]] as [string, string][];
    expect((await client.send("POST", cases, { headers: utf8, body: validCase })).status).toBe(200);
    const created = await create(validCase);
    const merge = [...bearer(w.adminKey), ["Content-Type", "application/merge-patch+json"]] as [string, string][];
    const patched = await client.send("PATCH", `${cases}/${created.body.id}`, { headers: merge, body: { severity: 1 } });
    expect(patched.status).toBe(200);
    expect(patched.body.severity).toBe(1);
  });

  it("refuses invalid list filters and unknown query parameters with 400", async () => {
    expectInvalid(await client.send("GET", `${cases}?severity=9`, { headers: bearer(w.adminKey) }), "severity");
    expectInvalid(await client.send("GET", `${cases}?limit=0`, { headers: bearer(w.adminKey) }), "limit");
    expectInvalid(await client.send("GET", `${cases}?limit=501`, { headers: bearer(w.adminKey) }), "limit");
    expectInvalid(await client.send("GET", `${cases}?cursor=nonsense`, { headers: bearer(w.adminKey) }), "cursor");
    expectProblem(await client.send("GET", `${cases}?colour=red`, { headers: bearer(w.adminKey) }), 400, "validation_failed");
    expectProblem(await client.send("GET", `${cases}?__proto__=x`, { headers: bearer(w.adminKey) }), 400, "validation_failed");
  });
});

describe("body size limit", () => {
  const limit = 2048;
  let w: World;
  let app: H3;
  let client: Transport;
  let server: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    w = await makeWorld();
    app = createCaseKitApp(w.kit, { bodyLimitBytes: limit });
    client = inProcess(app);
    server = await listening(app);
  });
  afterAll(async () => {
    await server.close();
  });

  const big = { ...validCase, description: "x".repeat(limit) };

  it("answers a declared Content-Length over the limit with 413", async () => {
    expectProblem(await client.send("POST", cases, { headers: bearer(w.adminKey), body: big }), 413, "payload_too_large");
    expectProblem(await server.send("POST", cases, { headers: bearer(w.adminKey), body: big }), 413, "payload_too_large");
  });

  it("counts a streamed body without Content-Length (in-process)", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 256) controller.enqueue(bytes.slice(i, i + 256));
        controller.close();
      },
    });
    const request = new Request(`http://casekit.test${cases}`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.adminKey}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(request.headers.get("content-length")).toBeNull();
    const response = await app.fetch(request);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe("payload_too_large");
  });

  it("counts a chunked body on a real socket", async () => {
    const text = JSON.stringify(big);
    const chunks = [text.slice(0, 1000), text.slice(1000, 2000), text.slice(2000)];
    const answer = await sendRaw(server.port, "POST", cases, {
      headers: [...bearer(w.adminKey), ["Content-Type", "application/json"]],
      chunks,
    });
    expectProblem(answer, 413, "payload_too_large");
  });

  it("accepts a body just under the limit", async () => {
    const fits = { ...validCase, description: "x".repeat(limit - 200) };
    expect((await client.send("POST", cases, { headers: bearer(w.adminKey), body: fits })).status).toBe(200);
  });
});

/**
 * Issue 12 item 11: input that no schema may let through, whatever the route. The rules live in
 * one place each (core/schema/well-formed.ts, core/schema/free-form.ts); the class is covered for
 * every route's body in test/core/input-well-formed.test.ts and against storage in
 * test/core/input-storage.test.ts; the real process in test/server/fuzz.test.ts.
 */
describe("hostile input", () => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = inProcess(w.app);
  });

  const create = (body: unknown) => client.send("POST", cases, { headers: bearer(w.adminKey), body });
  /** customFields nested `levels` deep (the field's own object included), as raw JSON text. */
  const nested = (levels: number) => `{"title":"Deep","severity":1,"customFields":${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}}`;

  it("refuses customFields nested 10 000 deep with 400, not a crash, and keeps serving", async () => {
    const answer = await create(nested(10_000));
    expectProblem(answer, 400, "validation_failed");
    expect(answer.body.errors[0].message).toMatch(/nests deeper than/);
    expect((await create(validCase)).status).toBe(200);
  });

  it("allows free-form JSON 8 levels deep and refuses 9, at the offending path", async () => {
    expect((await create(nested(8))).status).toBe(200);
    expectInvalid(await create(nested(9)), `customFields${".a".repeat(8)}`);
    expectInvalid(await create({ ...validCase, customFields: { list: [[[[[[[[1]]]]]]]] } }), "customFields.list.0.0.0.0.0.0.0");
  });

  it("answers free-form JSON over 64 KiB with 413, the size JSON Schema cannot state", async () => {
    expectProblem(await create({ ...validCase, customFields: { big: "x".repeat(70_000) } }), 413, "payload_too_large");
    expect((await create({ ...validCase, customFields: { big: "x".repeat(60_000) } })).status).toBe(200);
  });

  it("refuses NUL and unpaired surrogates in any string or member name, and stores nothing", async () => {
    const before = (await client.send("GET", `${cases}?limit=500`, { headers: bearer(w.adminKey) })).body.data.length;
    for (const [body, path] of [
      [{ ...validCase, title: "a\u0000b" }, "title"],
      [{ ...validCase, title: "lone \uD800 high" }, "title"],
      [{ ...validCase, title: "lone \uDC00 low" }, "title"],
      [{ ...validCase, tags: [{ name: "ok" }, { name: "x\u0000" }] }, "tags.1.name"],
      [{ ...validCase, customFields: { "key\u0000": 1 } }, "customFields.key\u0000"],
      [{ ...validCase, customFields: { deep: { deeper: ["\uDFFF"] } } }, "customFields.deep.deeper.0"],
    ] as const) {
      const answer = await create(body);
      expectInvalid(answer, path);
      expect(answer.body.errors[0].message).toMatch(/NUL|surrogate/);
    }
    expect((await client.send("GET", `${cases}?limit=500`, { headers: bearer(w.adminKey) })).body.data.length).toBe(before);
    // A well-formed pair (an emoji) is text like any other.
    expect((await create({ ...validCase, title: "phish 😀" })).body.title).toBe("phish 😀");
  });

  it("refuses NUL in a query parameter with 400 and in a path id with 404", async () => {
    expectInvalid(await client.send("GET", `${cases}?tag=a%00b`, { headers: bearer(w.adminKey) }), "tag");
    expectProblem(await client.send("GET", `${cases}/case_%00`, { headers: bearer(w.adminKey) }), 404, "not_found");
    expectProblem(await client.send("GET", `${cases}/not-a-case-id`, { headers: bearer(w.adminKey) }), 404, "not_found");
  });

  it("refuses webhook URLs naming a local host with a trailing dot, or an address outside unicast", async () => {
    const hook = (url: string) => client.send("POST", `${apiBasePath}/webhooks`, { headers: bearer(w.adminKey), body: { name: "h", url, events: ["case.created"] } });
    for (const url of ["http://localhost./", "http://x.internal./", "http://[::ffff:0:7f00:1]/", "http://[64:ff9b:1::a9fe:a9fe]/", "http://[2001::1]/", "http://[3fff::1]/"]) {
      expectInvalid(await hook(url), "url");
    }
    expect((await hook("https://hooks.example.com/in")).status).toBe(200);
  });
});
