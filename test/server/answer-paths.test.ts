// The lean Node answer (srvx FastResponse, server/answer.ts) and the in-process `app.fetch` answer
// (a standard Response) must carry the same headers, success or error: only what the transport
// adds itself (Date, Content-Length or chunked framing, keep-alive) may differ.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { bearer, inProcess, listening } from "./http.js";
import type { Answer, RequestSpec, Transport } from "./http.js";
import { makeWorld, validCase } from "./world.js";
import type { World } from "./world.js";

const transportHeaders = new Set(["date", "content-length", "transfer-encoding", "keep-alive"]);

/** Header name → value, without the transport's own headers; request ids reduced to their shape. */
function headerSet(answer: Answer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of answer.headers) {
    if (transportHeaders.has(name) || (name === "connection" && value === "keep-alive")) continue;
    out[name] = name === "x-request-id" ? value.replace(/^req_[0-9a-z]{26}$/, "req_<id>") : value;
  }
  return out;
}

/**
 * The Node client of http.ts sends `Connection: close` (no agent), which Node's server echoes; ask
 * for keep-alive, so a `connection: close` in the answer is the app's own (an unread body).
 */
function keepAlive(spec: RequestSpec): RequestSpec {
  return { ...spec, headers: [...(spec.headers ?? []), ["Connection", "keep-alive"]] };
}

type Step = [label: string, method: string, path: string, spec: (w: World) => RequestSpec];

const steps: Step[] = [
  ["probe", "GET", "/livez", () => ({})],
  ["probe, HEAD", "HEAD", "/readyz", () => ({})],
  ["authenticated health", "GET", `${apiBasePath}/health`, (w) => ({ headers: bearer(w.adminKey) })],
  ["a case created", "POST", `${apiBasePath}/cases`, (w) => ({ headers: bearer(w.adminKey), body: validCase })],
  ["no key: 401 with a challenge", "GET", `${apiBasePath}/cases`, () => ({})],
  ["a bad key: 401 invalid_token", "GET", `${apiBasePath}/cases`, () => ({ headers: [["Authorization", "Bearer nope"]] })],
  ["wrong method: 405 with Allow", "PUT", `${apiBasePath}/cases`, (w) => ({ headers: bearer(w.adminKey), body: validCase })],
  ["not JSON: 400", "POST", `${apiBasePath}/cases`, (w) => ({ headers: bearer(w.adminKey), body: "{not json" })],
  ["over the body limit: 413, connection closed", "POST", `${apiBasePath}/cases`, (w) => ({ headers: bearer(w.adminKey), body: { ...validCase, description: "a".repeat(4096) } })],
  ["unknown path: 404", "GET", "/nothing-here", () => ({})],
];

describe("answers through Node and through app.fetch", () => {
  const worlds: World[] = [];
  const transports: Transport[] = [];
  beforeAll(async () => {
    // One world per transport, same figures, so both spend the same rate-limit budget step by step.
    const options = { bodyLimitBytes: 2048 };
    const rateLimits = { deployment: { unlimited: { perMinute: 600, perHour: 10_000, burst: 12 } } };
    worlds.push(await makeWorld(options, { rateLimits }), await makeWorld(options, { rateLimits }));
    transports.push(await listening(worlds[0]!.app), inProcess(worlds[1]!.app));
  });
  afterAll(async () => {
    for (const transport of transports) await transport.close();
  });

  it("carry the same headers for every kind of answer, the rate-limit refusal included", async () => {
    const [node, fetched] = transports as [Transport, Transport];
    const [nodeWorld, fetchWorld] = worlds as [World, World];
    for (const [label, method, path, spec] of steps) {
      const overNode = await node.send(method, path, keepAlive(spec(nodeWorld)));
      const inProcessAnswer = await fetched.send(method, path, spec(fetchWorld));
      expect(overNode.status, label).toBe(inProcessAnswer.status);
      const overNodeSet = headerSet(overNode);
      if (label.startsWith("over the body limit")) {
        // Over Node the declared length is refused unread, so the connection closes. In process a
        // Request has no Content-Length header and no connection to close: the stream is cut at the limit.
        expect(overNodeSet.connection, label).toBe("close");
        delete overNodeSet.connection;
      }
      expect(overNodeSet, label).toEqual(headerSet(inProcessAnswer));
      expect(overNode.headers.get("x-request-id"), label).toMatch(/^req_/);
      if (method !== "HEAD") expect(overNode.text, label).not.toBe("");
    }
    // Spend the rest of the burst on both: the 429 carries Retry-After and the limit headers.
    let refusedOverNode: Answer | undefined;
    let refusedInProcess: Answer | undefined;
    for (let i = 0; i < 20 && !(refusedOverNode && refusedInProcess); i++) {
      const a = await node.send("GET", `${apiBasePath}/health`, keepAlive({ headers: bearer(nodeWorld.adminKey) }));
      const b = await fetched.send("GET", `${apiBasePath}/health`, { headers: bearer(fetchWorld.adminKey) });
      if (a.status === 429) refusedOverNode ??= a;
      if (b.status === 429) refusedInProcess ??= b;
    }
    expect(refusedOverNode?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(headerSet(refusedOverNode!)).toEqual(headerSet(refusedInProcess!));
  });

  it("say exactly which headers a success and an error carry", async () => {
    const w = await makeWorld();
    const node = await listening(w.app);
    transports.push(node);
    const ok = await node.send("POST", `${apiBasePath}/cases`, keepAlive({ headers: bearer(w.adminKey), body: validCase }));
    expect(Object.keys(headerSet(ok)).sort()).toEqual(
      ["cache-control", "content-type", "x-content-type-options", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-request-id"].sort(),
    );
    expect(ok.headers.get("content-length")).toBe(String(Buffer.byteLength(ok.text)));
    const refused = await node.send("GET", `${apiBasePath}/cases`, keepAlive({}));
    expect(headerSet(refused)).toEqual({
      "cache-control": "no-store",
      "content-type": "application/problem+json",
      "www-authenticate": 'Bearer realm="casekit"',
      "x-content-type-options": "nosniff",
      "x-request-id": "req_<id>",
    });
  });
});
