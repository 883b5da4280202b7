import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeySecret } from "../../core/index.js";
import { apiBasePath, apiRoutes, createCaseKitApp } from "../../server/index.js";
import { bearer, inProcess, listening, sendRaw } from "./http.js";
import type { Answer, HeaderList, Transport } from "./http.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

const transports = [
  { name: "in-process fetch", open: async (w: World) => inProcess(w.app) },
  { name: "real server on 127.0.0.1", open: async (w: World) => listening(w.app) },
];

function expect401(answer: Answer, code: string): void {
  expect(answer.status).toBe(401);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.body).toMatchObject({ status: 401, code, type: `https://casekit.dev/problems/${code}` });
  expect(typeof answer.body.title).toBe("string");
  expect(typeof answer.body.detail).toBe("string");
  const challenge = answer.headers.get("www-authenticate");
  if (code === "missing_credentials") expect(challenge).toBe('Bearer realm="casekit"');
  else expect(challenge).toBe('Bearer realm="casekit", error="invalid_token"');
  expect(answer.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
}

describe.each(transports)("authentication through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  const health = `${apiBasePath}/health`;

  beforeAll(async () => {
    // These tests send many bad keys from one address on purpose; the address throttle has its
    // own tests (rate-limits.test.ts), so here it is set wide enough never to bind.
    w = await makeWorld({}, { rateLimits: { sourceFailures: { perMinute: 10_000, perHour: 100_000, burst: 10_000 } } });
    client = await open(w);
  });
  afterAll(async () => {
    await client.close();
  });

  const get = (headers: HeaderList, path = health) => client.send("GET", path, { headers });

  it("accepts the key as Authorization: Bearer (any case of the scheme) and as X-Api-Key", async () => {
    expect((await get(bearer(w.adminKey))).status).toBe(200);
    expect((await get([["Authorization", `bearer ${w.adminKey}`]])).status).toBe(200);
    expect((await get([["X-Api-Key", w.adminKey]])).status).toBe(200);
  });

  it("refuses a request without credentials: missing_credentials, challenge without error", async () => {
    expect401(await get([]), "missing_credentials");
  });

  it("refuses malformed credentials as invalid_key", async () => {
    expect401(await get([["Authorization", `Basic ${Buffer.from("a:b").toString("base64")}`]]), "invalid_key");
    expect401(await get([["Authorization", "Bearer"]]), "invalid_key");
    expect401(await get([["Authorization", `Token ${w.adminKey}`]]), "invalid_key");
    expect401(await get([["Authorization", "Bearer not-a-key"]]), "invalid_key");
    expect401(await get([["X-Api-Key", "ck_live_short_x"]]), "invalid_key");
    expect401(await get([["X-Api-Key", ""]]), "invalid_key");
  });

  it("refuses an unknown well-formed key as invalid_key", async () => {
    expect401(await get(bearer(generateKeySecret())), "invalid_key");
  });

  it("refuses revoked, suspended and expired keys with their own codes", async () => {
    expect401(await get(bearer(w.keys.revoked)), "key_revoked");
    expect401(await get([["X-Api-Key", w.keys.suspended]]), "key_suspended");
    expect401(await get(bearer(w.keys.expired)), "key_expired");
  });

  it("refuses keys whose owner is disabled, locked or deleted", async () => {
    expect401(await get(bearer(w.keys.ownerDisabled)), "owner_inactive");
    expect401(await get(bearer(w.keys.ownerLocked)), "owner_inactive");
    expect401(await get([["X-Api-Key", w.keys.ownerDeleted]]), "owner_inactive");
  });

  it("refuses credentials in the query string, even next to a valid header", async () => {
    for (const name of ["api_key", "apikey", "key", "token", "access_token", "secret", "api-key", "API_KEY", "Token", "Access_Token"]) {
      expect401(await get(bearer(w.adminKey), `${health}?${name}=${w.adminKey}`), "credentials_in_query");
      expect401(await get([], `${health}?${name}=x`), "credentials_in_query");
    }
    expect401(await get(bearer(w.adminKey), `${apiBasePath}/cases?severity=3&api%5Fkey=x`), "credentials_in_query");
  });

  it("refuses split legacy key/secret headers", async () => {
    for (const name of ["X-Api-Key-Id", "X-Api-Secret", "X-Api-Key-Secret", "X-Api-Key-ID", "X-Secret-Key", "X-Access-Key"]) {
      expect401(await get([[name, "something"]]), "legacy_credentials_rejected");
      expect401(await get([...bearer(w.adminKey), [name, "something"]]), "legacy_credentials_rejected");
    }
  });

  it("refuses both accepted headers at once as ambiguous_credentials", async () => {
    expect401(await get([...bearer(w.adminKey), ["X-Api-Key", w.adminKey]]), "ambiguous_credentials");
  });

  it("refuses a credential header sent twice, even with the same valid key", async () => {
    expect401(await get([["X-Api-Key", w.adminKey], ["X-Api-Key", w.adminKey]]), "ambiguous_credentials");
    expect401(await get([...bearer(w.adminKey), ...bearer(w.adminKey)]), "ambiguous_credentials");
    expect401(await get([...bearer(w.adminKey), ...bearer(w.other.adminKey)]), "ambiguous_credentials");
  });

  it("answers a fresh request id on every response", async () => {
    const first = await get(bearer(w.adminKey));
    const second = await get([]);
    expect(first.headers.get("x-request-id")).toMatch(/^req_/);
    expect(second.headers.get("x-request-id")).toMatch(/^req_/);
    expect(first.headers.get("x-request-id")).not.toBe(second.headers.get("x-request-id"));
  });

  it("guards every route of the table but the public ones (the OpenAPI document): no key, bad key, revoked key are 401", async () => {
    for (const route of apiRoutes.filter((r) => !r.public)) {
      const path = apiBasePath + route.path.replace(/:(\w+)/g, "case_00000000000000000000000000");
      const body = route.body ? { title: "x", severity: 1 } : undefined;
      expect401(await client.send(route.method, path, { body }), "missing_credentials");
      expect401(await client.send(route.method, path, { headers: bearer(generateKeySecret()), body }), "invalid_key");
      expect401(await client.send(route.method, path, { headers: bearer(w.keys.revoked), body }), "key_revoked");
    }
  });
});

describe("raw header counting on a real socket", () => {
  let w: World;
  let server: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    w = await makeWorld();
    server = await listening(w.app);
  });
  afterAll(async () => {
    await server.close();
  });

  it("sees a repeated Authorization that Node's folded headers would drop", async () => {
    // Node's req.headers keeps only the first Authorization; the raw header list keeps both.
    const answer = await sendRaw(server.port, "GET", `${apiBasePath}/health`, {
      headers: [...bearer(w.adminKey), ["authorization", `Bearer ${w.adminKey}`]],
    });
    expect401(answer, "ambiguous_credentials");
  });

  it("does not mistake other repeated headers for credentials", async () => {
    const answer = await sendRaw(server.port, "GET", `${apiBasePath}/health`, {
      headers: [...bearer(w.adminKey), ["Accept", "application/json"], ["Accept", "text/plain"]],
    });
    expect(answer.status).toBe(200);
  });
});

describe("request origin in the audit trail", () => {
  const newestAudit = async (w: World) => (await w.kit.storage.read((tx) => tx.audit.list(w.organizationId, { limit: 1 })))[0];

  it("records the request id, the socket address and the user agent; ignores X-Forwarded-For by default", async () => {
    const w = await makeWorld();
    const server = await listening(w.app);
    try {
      const answer = await server.send("POST", `${apiBasePath}/cases`, {
        headers: [...bearer(w.adminKey), ["User-Agent", "casekit-test/1.0"], ["X-Forwarded-For", "203.0.113.7"]],
        body: { title: "origin", severity: 1 },
      });
      expect(answer.status).toBe(200);
      expect(await newestAudit(w)).toMatchObject({
        action: "case.created",
        requestId: answer.headers.get("x-request-id"),
        ip: "127.0.0.1",
        userAgent: "casekit-test/1.0",
      });
    } finally {
      await server.close();
    }
  });

  it("takes the client address from X-Forwarded-For with trustProxy", async () => {
    const w = await makeWorld();
    const server = await listening(createCaseKitApp(w.kit, { trustProxy: true }));
    try {
      const answer = await server.send("POST", `${apiBasePath}/cases`, {
        headers: [...bearer(w.adminKey), ["X-Forwarded-For", "203.0.113.7, 10.0.0.1"]],
        body: { title: "origin", severity: 1 },
      });
      expect(answer.status).toBe(200);
      expect(await newestAudit(w)).toMatchObject({ ip: "203.0.113.7" });
    } finally {
      await server.close();
    }
  });
});
