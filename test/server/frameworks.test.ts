// casekit/express, casekit/hono and casekit/fastify under a prefix: every absolute path casekit
// names back to the client (the OpenAPI documents' servers, the session cookie's Path) follows the
// prefix, an explicit basePath wins, and a body a parser in front already read is a clear 500.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import Fastify from "fastify";
import { H3 } from "h3";
import { toNodeHandler } from "h3/node";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { createCaseKit } from "casekit";
import type { CaseKit } from "casekit";
import { caseKitExpress } from "casekit/express";
import { caseKitFastify } from "casekit/fastify";
import { createCaseKitApp, mountCaseKit } from "casekit/h3";
import type { CaseKitAppOptions } from "casekit/h3";
import { caseKitHono } from "casekit/hono";
import { createSqliteStorage } from "casekit/sqlite";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { keyHashSecret } from "../helpers/kit.js";
import { migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;
interface Running {
  fetch: Fetch;
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function makeKit(): Promise<{ kit: CaseKit; email: string; password: string; apiKey: string }> {
  const storage = createSqliteStorage({ database: await migratedMemoryDatabase() });
  await storage.migrate();
  closers.push(() => storage.close());
  const kit = createCaseKit({ storage, passwordHasher: fastPasswordHasher, config: { keyHashSecret } });
  const email = "admin@acme.test";
  const { password, apiKey } = await kit.setup.initOrganization({ organizationName: "Acme SOC", email });
  return { kit, email, password, apiKey };
}

async function listen(server: Server): Promise<Fetch> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return (path, init) => fetch(origin + path, init);
}

/** Each framework with casekit under `prefix`, through its helper. */
const frameworks: Record<string, (kit: CaseKit, prefix: string, options?: CaseKitAppOptions) => Promise<Running>> = {
  express: async (kit, prefix, options) => {
    const app = express();
    app.use(prefix, caseKitExpress(kit, options));
    const fetch = await listen(app.listen(0, "127.0.0.1"));
    return { fetch, close: async () => {} };
  },
  hono: async (kit, prefix, options) => {
    const app = new Hono();
    app.all(`${prefix}/*`, caseKitHono(kit, options));
    return { fetch: async (path, init) => app.request(path, init), close: async () => {} };
  },
  fastify: async (kit, prefix, options) => {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(caseKitFastify(kit, options), { prefix });
    await app.listen({ port: 0, host: "127.0.0.1" });
    closers.push(() => app.close());
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    return { fetch: (path, init) => fetch(origin + path, init), close: async () => {} };
  },
};

const json = { "Content-Type": "application/json" };

/** Signs in through the account area at `area` and answers the session cookie's attributes. */
async function signIn(call: Fetch, area: string, email: string, password: string): Promise<{ cookie: string; attributes: string[] }> {
  const answer = await call(`${area}/sign-in`, { method: "POST", headers: json, body: JSON.stringify({ email, password }) });
  expect(answer.status).toBe(200);
  await answer.body?.cancel();
  const [pair = "", ...attributes] = (answer.headers.get("set-cookie") ?? "").split(";").map((part) => part.trim());
  return { cookie: pair, attributes };
}

describe.each(Object.keys(frameworks))("casekit/%s under a prefix", (name) => {
  const mount = frameworks[name]!;

  it("names the prefix in both documents' servers and in the session cookie's Path", async () => {
    const { kit, email, password } = await makeKit();
    const { fetch: call } = await mount(kit, "/security");

    const api = (await (await call("/security/api/v1/openapi.json")).json()) as { servers: unknown };
    expect(api.servers).toEqual([{ url: "/security/api/v1" }]);
    const account = (await (await call("/security/account/openapi.json")).json()) as { servers: unknown };
    expect(account.servers).toEqual([{ url: "/security/account" }]);

    const { cookie, attributes } = await signIn(call, "/security/account", email, password);
    expect(attributes).toContain("Path=/security/account");
    // The cookie the browser would send back to that path works there.
    const me = await call("/security/account/me", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(email);
  });

  it("takes an explicit basePath over the derived prefix (a proxy in front adds /tools)", async () => {
    const { kit, email, password } = await makeKit();
    const { fetch: call } = await mount(kit, "/security", { basePath: "/tools/security/" });
    const api = (await (await call("/security/api/v1/openapi.json")).json()) as { servers: unknown };
    expect(api.servers).toEqual([{ url: "/tools/security/api/v1" }]);
    const { attributes } = await signIn(call, "/security/account", email, password);
    expect(attributes).toContain("Path=/tools/security/account");
  });
});

describe("a body read before casekit", () => {
  it("Express: express.json() mounted first answers 500 body_already_consumed, saying what to change", async () => {
    const { kit, apiKey } = await makeKit();
    const app = express();
    app.use(express.json());
    app.use("/security", caseKitExpress(kit));
    const call = await listen(app.listen(0, "127.0.0.1"));

    const answer = await call("/security/api/v1/cases", {
      method: "POST",
      headers: { ...json, Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ title: "Parsed by someone else", severity: 2 }),
    });
    expect(answer.status).toBe(500);
    expect(answer.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await answer.json()) as { code: string; detail: string; type: string };
    expect(problem.code).toBe("body_already_consumed");
    expect(problem.type).toBe("https://casekit.dev/problems/body_already_consumed");
    expect(problem.detail).toContain("mount casekit before any body parser");
    // Nothing was written, and requests without a body still work behind the parser.
    const list = await call("/security/api/v1/cases", { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("Express: with the parser after casekit (or off its prefix) the same request succeeds", async () => {
    const { kit, apiKey } = await makeKit();
    const app = express();
    app.use("/security", caseKitExpress(kit));
    app.use(express.json());
    const call = await listen(app.listen(0, "127.0.0.1"));
    const answer = await call("/security/api/v1/cases", {
      method: "POST",
      headers: { ...json, Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ title: "Read by casekit", severity: 2 }),
    });
    expect(answer.status).toBe(200);
    await answer.body?.cancel();
  });

  it("Hono: a middleware that read c.req.json() first gets the same 500", async () => {
    const { kit, apiKey } = await makeKit();
    const app = new Hono();
    app.use("*", async (c, next) => {
      if (c.req.header("content-type")?.includes("json")) await c.req.json();
      await next();
    });
    app.all("/security/*", caseKitHono(kit));
    const answer = await app.request("/security/api/v1/cases", {
      method: "POST",
      headers: { ...json, Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ title: "Parsed by someone else", severity: 2 }),
    });
    expect(answer.status).toBe(500);
    expect(((await answer.json()) as { code: string }).code).toBe("body_already_consumed");
  });
});

describe("the base path without a helper", () => {
  it("is derived from Express's req.baseUrl for a plain toNodeHandler mount", async () => {
    const { kit } = await makeKit();
    const app = express();
    app.use("/security", toNodeHandler(createCaseKitApp(kit)));
    const call = await listen(app.listen(0, "127.0.0.1"));
    const api = (await (await call("/security/api/v1/openapi.json")).json()) as { servers: unknown };
    expect(api.servers).toEqual([{ url: "/security/api/v1" }]);
  });

  it("is mountCaseKit's prefix in h3, the explicit one winning", async () => {
    const { kit, email, password } = await makeKit();
    const parent = new H3();
    mountCaseKit(parent, "/casekit", kit);
    const call: Fetch = async (path, init) => parent.fetch(new Request(`http://localhost${path}`, init));
    const { attributes } = await signIn(call, "/casekit/account", email, password);
    expect(attributes).toContain("Path=/casekit/account");

    const behindProxy = new H3();
    mountCaseKit(behindProxy, "/casekit", kit, { basePath: "/edge/casekit" });
    const api = (await (await behindProxy.fetch(new Request("http://localhost/casekit/api/v1/openapi.json"))).json()) as { servers: unknown };
    expect(api.servers).toEqual([{ url: "/edge/casekit/api/v1" }]);
  });

  it("counts a Hono route's parameters and outer prefixes in the prefix", async () => {
    const { kit } = await makeKit();
    const tenant = new Hono();
    tenant.all("/casekit/*", caseKitHono(kit));
    const app = new Hono().route("/t/:tenant", tenant);
    const api = (await (await app.request("/t/acme/casekit/api/v1/openapi.json")).json()) as { servers: unknown };
    expect(api.servers).toEqual([{ url: "/t/acme/casekit/api/v1" }]);
    expect((await app.request("/t/acme/casekit/livez")).status).toBe(200);
  });

  it("refuses a basePath that is not an absolute path when the app is built", async () => {
    const { kit } = await makeKit();
    expect(() => createCaseKitApp(kit, { basePath: "security" })).toThrow(TypeError);
    expect(() => createCaseKitApp(kit, { basePath: "/a/../b" })).toThrow(TypeError);
    expect(() => createCaseKitApp(kit, { basePath: "/a?b" })).toThrow(TypeError);
    expect(() => createCaseKitApp(kit, { basePath: "/" })).not.toThrow();
  });
});
