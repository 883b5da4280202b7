/**
 * The contract is exactly what the server checks: a property-based fuzz test driven by the
 * OpenAPI document the server publishes. For every operation, fast-check generates requests from
 * the operation's own JSON Schemas (test/helpers/json-schema-arbitrary.ts): path ids (real records
 * and generated ones of the declared shape), query strings and bodies, valid and mutated
 * (test/helpers/json-mutation.ts). Every answer must be
 *
 * - no 5xx,
 * - a status the operation documents, with the documented media type and a body its schema accepts,
 * - for a request the document calls valid: never 400 `validation_failed` (403, 404, 409 … for the
 *   state of records are fine),
 * - for a body the document calls invalid: never a success (the server checks what it declares),
 * - for a path id of the wrong shape, 404; for an unknown or malformed query parameter, 400.
 *
 * The volume runs in-process (`app.fetch`); a smaller pass sends the same kinds of requests to the
 * real `casekit serve` process (needs `npm run build`), and item 11's hostile inputs are shown there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { fuzzHarness, ownOrganization, requestInit, seedThroughApi, toAnswer } from "../helpers/openapi-fuzz.js";
import type { Json, Send } from "../helpers/openapi-fuzz.js";
import { startServeProcess } from "../helpers/serve-process.js";
import type { ServeProcess } from "../helpers/serve-process.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

describe("the API, fuzzed from its OpenAPI document", () => {
  describe("in-process (app.fetch), for volume", () => {
    let w: World;
    let doc: Json;
    let send: Send;
    let fuzz: ReturnType<typeof fuzzHarness>;

    beforeAll(async () => {
      w = await makeWorld();
      // Time stands still in the world: each operation's burst of requests gets a fresh hour.
      const fetchApp = w.app.fetch.bind(w.app);
      let calls = 0;
      w.app.fetch = ((request: Request) => (++calls % 200 === 0 && w.clock.advance(3_600_000), fetchApp(request))) as typeof w.app.fetch;
      send = async (method, path, key, body) => toAnswer(await w.app.fetch(new Request(`http://casekit.test${path}`, requestInit(method, key, body))));
      doc = (await send("GET", `${apiBasePath}/openapi.json`, w.adminKey, undefined)).body;
      fuzz = fuzzHarness(doc, await seedThroughApi(send, w.adminKey));
    });

    it("answers every operation as documented, for valid and mutated requests alike", async () => {
      const failures = await fuzz.run(fuzz.operations, send, (op) => (ownOrganization(op) ? w.adminKey : w.other.adminKey), Number(process.env.FUZZ_RUNS) || 50);
      expect(failures, failures.join("\n\n")).toEqual([]);
    }, 120_000);
  });

  describe("against the real casekit serve process", () => {
    let server: ServeProcess;
    let doc: Json;
    let send: Send;
    let fuzz: ReturnType<typeof fuzzHarness>;

    beforeAll(async () => {
      server = await startServeProcess();
      send = async (method, path, key, body) => toAnswer(await fetch(server.origin + path, requestInit(method, key, body)));
      doc = (await send("GET", `${apiBasePath}/openapi.json`, server.apiKey, undefined)).body;
      fuzz = fuzzHarness(doc, await seedThroughApi(send, server.apiKey));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it("answers every operation as documented over HTTP, and stays up", async () => {
      const failures = await fuzz.run(fuzz.operations.filter(ownOrganization), send, () => server.apiKey, Number(process.env.FUZZ_PROCESS_RUNS) || 8);
      expect(failures, failures.join("\n\n")).toEqual([]);
      expect(server.alive()).toBe(true);
    }, 60_000);

    it("refuses hostile input (issue 12 item 11) with problem+json, and stays up", async () => {
      const post = (path: string, body: string) =>
        fetch(server.origin + apiBasePath + path, { method: "POST", headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" }, body }).then(toAnswer);
      const expectCode = (answer: { status: number; contentType: string; body: Json }, status: number, code: string) => {
        expect({ status: answer.status, type: answer.contentType, code: answer.body?.code }).toEqual({ status, type: "application/problem+json", code });
      };
      // customFields nested 10 000 deep: a 400 at the depth limit, not a 500.
      expectCode(await post("/cases", `{"title":"Deep","severity":1,"customFields":${'{"a":'.repeat(9_999)}{}${"}".repeat(9_999)}}`), 400, "validation_failed");
      // NUL and unpaired surrogates, as JSON escapes, in a value and in a member name.
      expectCode(await post("/cases", '{"title":"a\\u0000b","severity":1}'), 400, "validation_failed");
      expectCode(await post("/cases", '{"title":"lone \\ud800","severity":1}'), 400, "validation_failed");
      expectCode(await post("/cases", '{"title":"t","severity":1,"customFields":{"k\\u0000":1}}'), 400, "validation_failed");
      // Free-form JSON over 64 KiB: 413, the size the document states in words.
      expectCode(await post("/cases", JSON.stringify({ title: "Big", severity: 1, customFields: { big: "x".repeat(70_000) } })), 413, "payload_too_large");
      // Webhook targets: local names with a trailing dot, addresses outside unicast.
      for (const url of ["http://localhost./", "http://x.internal./", "http://[::ffff:0:7f00:1]/", "http://[64:ff9b:1::7f00:1]/", "http://[2001::1]/", "http://[3fff::1]/"]) {
        const answer = await post("/webhooks", JSON.stringify({ name: "h", url, events: ["case.created"] }));
        expectCode(answer, 400, "validation_failed");
        expect(answer.body.errors[0].path, url).toBe("url");
      }
      // A path id with NUL names no record.
      expectCode(await toAnswer(await server.request(`${apiBasePath}/cases/case_%00`)), 404, "not_found");
      expect(server.alive()).toBe(true);
      expect((await server.request(`${apiBasePath}/health`)).status).toBe(200);
    });
  });
});
