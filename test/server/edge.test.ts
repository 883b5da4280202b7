// Issue 12 items 1 and 13, in-process: the host edge (server/listen.ts) serving a world's app.
// The same checks against the real `casekit serve` process are in edge-process.test.ts.
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountBasePath, accountRoutes } from "../../server/account.js";
import { apiBasePath } from "../../server/index.js";
import { listenHttp, maxRequestHeadBytes } from "../../server/listen.js";
import type { ListeningServer } from "../../server/listen.js";
import { apiRoutes } from "../../server/routes/index.js";
import { rawRequest } from "../helpers/raw-http.js";
import type { RawAnswer } from "../helpers/raw-http.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

const bodyLimit = 4096;

let w: World;
let edge: ListeningServer;

beforeAll(async () => {
  w = await makeWorld({ bodyLimitBytes: bodyLimit });
  edge = await listenHttp(w.app, { port: 0, host: "127.0.0.1", requestId: () => w.kit.deps.ids.next("req") });
});
afterAll(async () => {
  await edge.close(1_000);
});

function expectProblemAnswer(answer: RawAnswer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }, answer.text).toEqual({ status, code });
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
}

async function stillServes(): Promise<void> {
  const answer = await fetch(`http://127.0.0.1:${edge.port}${apiBasePath}/health`, { headers: { authorization: `Bearer ${w.adminKey}` } });
  expect(answer.status).toBe(200);
}

/** Every path the app serves with a method that may carry a body, plus the account area and unknown paths. */
const targets: { label: string; method: string; path: string; keyed: boolean }[] = [
  ...apiRoutes
    .filter((route) => route.method !== "GET")
    .flatMap((route) => {
      const path = apiBasePath + route.path.replace(/:(\w+)/g, "x_$1");
      return [
        { label: `${route.method} ${route.path} with a key`, method: route.method, path, keyed: true },
        { label: `${route.method} ${route.path} without a key`, method: route.method, path, keyed: false },
      ];
    }),
  ...accountRoutes
    .filter((route) => route.method !== "GET")
    .map((route) => ({ label: `${route.method} /account${route.path}`, method: route.method, path: accountBasePath + route.path.replace(/:(\w+)/g, "x_$1"), keyed: false })),
  { label: "POST to an unknown API path", method: "POST", path: `${apiBasePath}/no-such-thing`, keyed: true },
  { label: "PUT to an unknown path", method: "PUT", path: "/no-such-thing", keyed: false },
  { label: "POST /livez", method: "POST", path: "/livez", keyed: false },
];

describe("a body over the limit, on every route, with or without a key", () => {
  it.each(targets.map((t) => [t.label, t] as const))("%s: chunked, endless → 413, connection closed, server serving", async (_label, target) => {
    const answer = await rawRequest(edge.port, {
      method: target.method,
      path: target.path,
      headers: [["Content-Type", "application/json"], ...(target.keyed ? ([["Authorization", `Bearer ${w.adminKey}`]] as [string, string][]) : [])],
      chunked: { chunks: 10_000, chunkBytes: 1024, everyMs: 1 },
    });
    expectProblemAnswer(answer, 413, "payload_too_large");
    expect(answer.headers.get("connection")).toBe("close");
    expect(answer.closedByServer).toBe(true);
    await stillServes();
  });

  it.each(targets.map((t) => [t.label, t] as const))("%s: declared Content-Length over the limit → 413 before reading", async (_label, target) => {
    const answer = await rawRequest(edge.port, {
      method: target.method,
      path: target.path,
      headers: [
        ["Content-Type", "application/json"],
        ["Content-Length", String(bodyLimit + 1)],
      ],
    });
    expectProblemAnswer(answer, 413, "payload_too_large");
  });

  it("a GET with a declared length over the limit is 413 too; a chunked GET body is never read and closes the connection", async () => {
    expectProblemAnswer(await rawRequest(edge.port, { method: "GET", path: `${apiBasePath}/cases`, headers: [["Content-Length", String(bodyLimit + 1)]] }), 413, "payload_too_large");
    const chunked = await rawRequest(edge.port, {
      method: "GET",
      path: "/livez",
      chunked: { chunks: 10_000, chunkBytes: 1024, everyMs: 1 },
    });
    expect(chunked.status).toBe(200);
    expect(chunked.closedByServer).toBe(true);
    await stillServes();
  });

  it("an upload cut off halfway harms nothing; a body within the limit still works on the same server", async () => {
    for (const path of [`${accountBasePath}/sign-in`, `${apiBasePath}/cases`]) {
      const answer = await rawRequest(edge.port, {
        method: "POST",
        path,
        headers: [
          ["Content-Type", "application/json"],
          ["Authorization", `Bearer ${w.adminKey}`],
        ],
        chunked: { chunks: 1_000, chunkBytes: 512, everyMs: 1 },
        abortAfterChunks: 3,
      });
      expect(answer.status).toBe(0);
    }
    const created = await fetch(`http://127.0.0.1:${edge.port}${apiBasePath}/cases`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "After the aborted uploads", severity: 2 }),
    });
    expect(created.status).toBe(200);
  });
});

describe("requests Node refuses before the app sees them", () => {
  it("a request head over the limit (a long query) is 431 problem+json with a request id", async () => {
    const query = `?tag=${"a".repeat(maxRequestHeadBytes)}`;
    const answer = await rawRequest(edge.port, { method: "GET", path: `${apiBasePath}/cases${query}`, headers: [["Authorization", `Bearer ${w.adminKey}`]] });
    expectProblemAnswer(answer, 431, "headers_too_large");
    expect(answer.body.detail).toContain(String(maxRequestHeadBytes));
    await stillServes();
  });

  it("a head just under the limit is served (Node's 16 KiB default would have refused it)", async () => {
    const query = `?cursor=${"a".repeat(100)}&tag=${"b".repeat(64 * 1024)}`;
    const answer = await rawRequest(edge.port, {
      method: "GET",
      path: `${apiBasePath}/cases${query}`,
      headers: [
        ["Authorization", `Bearer ${w.adminKey}`],
        ["Connection", "close"],
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("validation_failed");
  });

  it("malformed HTTP is 400 problem+json with a request id", async () => {
    const answer = await rawRequest(edge.port, { method: "NOT A METHOD", path: "/" });
    expectProblemAnswer(answer, 400, "malformed_request");
    await stillServes();
  });
});

describe("binding", () => {
  it("a busy port fails at once and says so (no silent move to another port)", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      await expect(listenHttp(w.app, { port, host: "127.0.0.1", requestId: () => "req_x" })).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
    } finally {
      blocker.close();
    }
  });

  it("a host that does not resolve, or an address this machine does not have, fails with its reason", async () => {
    await expect(listenHttp(w.app, { port: 0, host: "no-such-host.invalid", requestId: () => "req_x" })).rejects.toThrow("the host name does not resolve");
    await expect(listenHttp(w.app, { port: 0, host: "203.0.113.7", requestId: () => "req_x" })).rejects.toThrow("this machine has no such address");
  });
});

describe("shutdown", () => {
  it("lets a request in flight finish, closes idle keep-alive connections at once, and cuts what is left at the deadline", async () => {
    const own = await listenHttp(w.app, { port: 0, host: "127.0.0.1", requestId: () => w.kit.deps.ids.next("req") });
    // An idle keep-alive connection: must not hold the shutdown up.
    const idle = await fetch(`http://127.0.0.1:${own.port}/livez`);
    expect(idle.status).toBe(200);
    // A request whose body arrives slowly (about 300 ms): finishes within the deadline.
    const slow = rawRequest(own.port, {
      method: "POST",
      path: `${apiBasePath}/cases`,
      headers: [
        ["Content-Type", "application/json"],
        ["Authorization", `Bearer ${w.adminKey}`],
      ],
      chunked: { chunks: 30, chunkBytes: 16, everyMs: 10 },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const closed = await own.close(5_000);
    expect(closed).toEqual({ forced: 0 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await slow).status).toBe(400); // its body is not JSON: but it was answered

    // A request that never finishes is cut at the deadline.
    const stuck = await listenHttp(w.app, { port: 0, host: "127.0.0.1", requestId: () => w.kit.deps.ids.next("req") });
    const endless = rawRequest(stuck.port, {
      method: "POST",
      path: `${apiBasePath}/cases`,
      headers: [["Content-Type", "application/json"]],
      chunked: { chunks: 1_000_000, chunkBytes: 1, everyMs: 20 },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const at = Date.now();
    expect(await stuck.close(300)).toEqual({ forced: 1 });
    expect(Date.now() - at).toBeLessThan(2_000);
    expect((await endless).status).toBe(0);
  });
});
