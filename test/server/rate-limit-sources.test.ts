// Issue 12 item 6 over HTTP: one bad client never locks out the clients behind the same address.
import { afterEach, describe, expect, it } from "vitest";
import { generateKeySecret, signInFailureLimit } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { bearer, listening } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld } from "./world.js";

const health = `${apiBasePath}/health`;
const nat = "198.51.100.1";

let client: (Transport & { port: number }) | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

const from = (address: string, headers: [string, string][] = []): [string, string][] => [...headers, ["X-Forwarded-For", address]];

describe("bad keys from an address", () => {
  it("200 failures from an address (a NAT, a proxy) never refuse a valid key from it", async () => {
    const w = await makeWorld({ trustProxy: true });
    client = await listening(w.app);
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) codes.add((await client.send("GET", health, { headers: from(nat, bearer(generateKeySecret())) })).body.code);
    expect(codes).toEqual(new Set(["invalid_key", "rate_limited"]));
    for (const key of [w.adminKey, w.keys.readOnly, w.keys.lowClearance]) {
      expect((await client.send("GET", health, { headers: from(nat, bearer(key)) })).status).toBe(200);
    }
    // The failures go on being refused; nothing they do spends the valid keys' budgets.
    expect((await client.send("GET", health, { headers: from(nat, bearer(w.keys.revoked)) })).body.code).toBe("rate_limited");
  });
});

describe("password sign-in from behind one address", () => {
  it("an outsider's guesses lock out only their own address: the user signs in from another", async () => {
    const w = await makeWorld({ trustProxy: true });
    client = await listening(w.app);
    const password = "correct horse battery staple";
    await w.kit.users.create(w.admin, { email: "sam@acme.test", name: "Sam", password });
    const signIn = (address: string, pass: string) => client!.send("POST", "/account/sign-in", { headers: from(address), body: { email: "sam@acme.test", password: pass } });

    for (let i = 0; i < signInFailureLimit; i++) expect((await signIn("203.0.113.66", "guess")).body.code).toBe("invalid_credentials");
    const locked = await signIn("203.0.113.66", "guess");
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);

    const rightful = await signIn("192.0.2.10", password);
    expect(rightful.status).toBe(200);
    expect(rightful.body.user.email).toBe("sam@acme.test");
    // Someone else behind the guesser's address signs in to their own account as usual.
    const neighbour = "neighbour password 12";
    await w.kit.users.create(w.admin, { email: "kim@acme.test", name: "Kim", password: neighbour });
    const other = await client.send("POST", "/account/sign-in", { headers: from("203.0.113.66"), body: { email: "kim@acme.test", password: neighbour } });
    expect(other.status).toBe(200);
  });
});
