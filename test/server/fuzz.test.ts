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
      const failures = await fuzz.run(fuzz.operations, send, (op) => (ownOrganization(op) ? w.adminKey : w.other.adminKey), Number(process.env.FUZZ_RUNS) || 25);
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
      const failures = await fuzz.run(fuzz.operations.filter(ownOrganization), send, () => server.apiKey, 4);
      expect(failures, failures.join("\n\n")).toEqual([]);
      expect(server.alive()).toBe(true);
    }, 60_000);
  });
});
