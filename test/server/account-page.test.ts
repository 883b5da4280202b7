/**
 * The account page as HTTP, without a browser (account-browser.test.ts drives it in Chromium): its
 * addresses relative to `…/account/`, its security headers and cached assets, its script linted as
 * the browser runs it; the session routes the page starts from (`session`, `api-key-options`); the
 * session cookie's attributes behind TLS; and no page when the host brings its own identity.
 */
import { createHash } from "node:crypto";
import js from "@eslint/js";
import { Linter } from "eslint";
import { describe, expect, it } from "vitest";
import { createCaseKitApp } from "../../server/index.js";
import { accountScript } from "../../server/account-page/script.js";
import { accountStyle } from "../../server/account-page/style.js";
import { inProcess } from "./http.js";
import type { Answer, Transport } from "./http.js";
import { makeWorld } from "./world.js";

const w = await makeWorld();
const client = inProcess(w.app);
const password = "the analyst's own password";
let people = 0;

async function signedIn(transport: Transport = client, headers: [string, string][] = []) {
  people += 1;
  const email = `page${people}@acme.test`;
  await w.kit.users.create(w.admin, { email, name: email, password, role: "analyst", tlpClearance: 2 });
  const answer = await transport.send("POST", "/account/sign-in", { body: { email, password }, headers });
  expect(answer.status, answer.text).toBe(200);
  const token = /casekit_session=([^;]+)/.exec(answer.headers.get("set-cookie") ?? "")![1]!;
  const cookie: [string, string] = ["Cookie", `casekit_session=${token}`];
  return { answer, token, cookie, csrfToken: (answer.body as { csrfToken: string }).csrfToken };
}

/** The page's asset addresses, as written in its HTML. */
async function addresses(path: string): Promise<string[]> {
  const page = await client.send("GET", path);
  expect(page.status).toBe(200);
  return [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.startsWith("data:"));
}

describe("GET /account/", () => {
  it("names its assets relative to itself; /account redirects there by a relative address, so any prefix stays", async () => {
    expect((await addresses("/account/")).map((a) => a.replace(/\?v=[0-9a-f]{16}$/, "")).sort()).toEqual(["assets/account.css", "assets/account.js", "openapi.json"]);
    const bare = await client.send("GET", "/account");
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("account/");
  });

  it("sends the reference page's strict Content-Security-Policy, refuses framing, is never cached, and holds no inline code", async () => {
    const page = await client.send("GET", "/account/");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
    );
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.text).not.toMatch(/<script>|<style|style=|\son[a-z]+=/i);
    // Every form field has its label.
    for (const [, id] of page.text.matchAll(/<(?:input|textarea) id="([^"]+)"/g)) expect(page.text, id).toContain(`for="${id}"`);
  });

  it("serves the script and stylesheet for good under their content hash, GET and HEAD only", async () => {
    for (const address of (await addresses("/account/")).filter((a) => a.startsWith("assets/"))) {
      const asset = await client.send("GET", `/account/${address}`);
      expect(asset.status, address).toBe(200);
      expect(asset.headers.get("content-type")).toBe(address.includes(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect((await client.send("HEAD", `/account/${address}`)).status).toBe(200);
      expect((await client.send("POST", `/account/${address}`)).status).toBe(405);
    }
    expect((await client.send("POST", "/account/")).status).toBe(405);
  });

  it("is not served, nor the account area, when the host brings its own identity; acceptApiKeys brings both back", async () => {
    const identify = async () => undefined;
    const hostOnly = inProcess(createCaseKitApp(w.kit, { identify }));
    for (const path of ["/account/", "/account", "/account/assets/account.js", "/account/session"]) expect((await hostOnly.send("GET", path)).status, path).toBe(404);
    expect((await hostOnly.send("POST", "/account/sign-in", { body: { email: "a@acme.test", password } })).status).toBe(404);
    const withKeys = inProcess(createCaseKitApp(w.kit, { identify, acceptApiKeys: true }));
    expect((await withKeys.send("GET", "/account/")).status).toBe(200);
  });
});

describe("the page's script", () => {
  it("passes ESLint's recommended rules as a browser script", () => {
    const globals = ["document", "window", "navigator", "fetch", "URL", "Error", "Promise"];
    const messages = new Linter({ configType: "flat" }).verify(accountScript, [
      { ...js.configs.recommended, languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: Object.fromEntries(globals.map((name) => [name, "readonly"])) } },
    ]);
    expect(messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? ""} ${m.message}`)).toEqual([]);
  });

  it("builds no HTML from strings, stores nothing, names no address of its own, and the stylesheet loads nothing", () => {
    for (const forbidden of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "localStorage", "sessionStorage", "indexedDB", "document.cookie", "sendBeacon", "history.", "location.", "http://", "https://", "//cdn", 'fetch("/']) {
      expect(accountScript, forbidden).not.toContain(forbidden);
    }
    expect(accountStyle).not.toMatch(/url\(|@import/i);
  });
});

describe("the session routes the page starts from", () => {
  it("GET /account/session answers the user, the sign-in's CSRF token again and the end; without a session 401", async () => {
    const { answer, cookie, csrfToken } = await signedIn();
    const again = await client.send("GET", "/account/session", { headers: [cookie] });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(answer.body);
    // The token it answers works for changes, like the sign-in's.
    const out = await client.send("POST", "/account/sign-out", { headers: [cookie, ["X-CSRF-Token", csrfToken]] });
    expect(out.status).toBe(200);
    expectProblem(await client.send("GET", "/account/session", { headers: [cookie] }), 401, "invalid_session");
    expectProblem(await client.send("GET", "/account/session"), 401, "invalid_session");
  });

  it("a session whose CSRF token was not derived from its token (made before) cannot be resumed, but keeps working with the token it was given", async () => {
    const { token, cookie, csrfToken } = await signedIn();
    const sessionOf = await w.kit.storage.read((tx) => tx.sessions.findByTokenHash(sha256(token)));
    const legacyCsrf = "an-older-random-csrf-token";
    await w.kit.storage.transaction(async (tx) => {
      await tx.sessions.delete(sessionOf!.session.organizationId, sessionOf!.session.id);
      await tx.sessions.insert({ ...sessionOf!.session, csrfHash: sha256(legacyCsrf) });
    });
    expectProblem(await client.send("GET", "/account/session", { headers: [cookie] }), 401, "invalid_session");
    expectProblem(await client.send("POST", "/account/sign-out", { headers: [cookie, ["X-CSRF-Token", csrfToken]] }), 403, "csrf_rejected");
    expect((await client.send("POST", "/account/sign-out", { headers: [cookie, ["X-CSRF-Token", legacyCsrf]] })).status).toBe(200);
  });

  it("GET /account/api-key-options answers what create accepts: the role's scopes, the clearance, the policy's tiers and expiry", async () => {
    const { cookie, csrfToken } = await signedIn();
    await w.kit.organizations.updatePolicy(w.admin, { maxKeyLifetimeDays: 30, allowedTiers: ["basic", "standard"] });
    try {
      const options = await client.send("GET", "/account/api-key-options", { headers: [cookie] });
      expect(options.body).toEqual({
        scopes: ["cases:read", "cases:write", "alerts:read", "alerts:write", "tasks:read", "tasks:write", "observables:read", "observables:write", "users:read"],
        maxTlpClearance: 2,
        tiers: ["basic", "standard"],
        defaultTier: "standard",
        expiryRequired: true,
        maxLifetimeDays: 30,
      });
      const create = (body: Record<string, unknown>) => client.send("POST", "/account/api-keys", { headers: [cookie, ["X-CSRF-Token", csrfToken]], body });
      const expiresAt = new Date(w.clock.now().getTime() + 29 * 86_400_000).toISOString();
      expect((await create({ name: "Within", scopes: ["users:read"], tier: "standard", tlpClearance: 2, expiresAt })).status).toBe(200);
      expectProblem(await create({ name: "Scope", scopes: ["keys:write"], expiresAt }), 403, "missing_scope");
      expectProblem(await create({ name: "Clearance", scopes: ["cases:read"], tlpClearance: 3, expiresAt }), 403, "tlp_restricted");
      expectProblem(await create({ name: "Tier", scopes: ["cases:read"], tier: "professional", expiresAt }), 403, "organization_restricted");
      expectProblem(await create({ name: "Expiry", scopes: ["cases:read"] }), 403, "organization_restricted");
    } finally {
      await w.kit.organizations.updatePolicy(w.admin, { maxKeyLifetimeDays: null, allowedTiers: ["basic", "standard", "professional", "enterprise"] });
    }
  });
});

describe("the session cookie", () => {
  const attributes = (answer: Answer) => (answer.headers.get("set-cookie") ?? "").split(";").map((part) => part.trim());

  it("is HttpOnly, SameSite=Strict and scoped to the account area; Secure only over TLS", async () => {
    const plain = attributes((await signedIn()).answer);
    expect(plain).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/account"]));
    expect(plain).not.toContain("Secure");
  });

  it("is Secure behind a trusted proxy that says https, and with secureCookies; an untrusted X-Forwarded-Proto changes nothing", async () => {
    const forwarded: [string, string][] = [["X-Forwarded-Proto", "https"]];
    expect(attributes((await signedIn(inProcess(createCaseKitApp(w.kit, { trustProxy: true })), forwarded)).answer)).toContain("Secure");
    expect(attributes((await signedIn(client, forwarded)).answer)).not.toContain("Secure");
    expect(attributes((await signedIn(inProcess(createCaseKitApp(w.kit, { secureCookies: true })))).answer)).toContain("Secure");
    // Sign-out's clearing cookie carries the same attributes.
    const secure = inProcess(createCaseKitApp(w.kit, { secureCookies: true }));
    const { cookie, csrfToken } = await signedIn(secure);
    const out = await secure.send("POST", "/account/sign-out", { headers: [cookie, ["X-CSRF-Token", csrfToken]] });
    expect(attributes(out)).toEqual(expect.arrayContaining(["Max-Age=0", "HttpOnly", "SameSite=Strict", "Secure"]));
  });

  it("ends with a status change: the page's next call is 401 and the user is sent to sign in", async () => {
    const { cookie } = await signedIn();
    const me = (await client.send("GET", "/account/me", { headers: [cookie] })).body as { id: string };
    await w.kit.users.update(w.admin, me.id, { status: "disabled" });
    expectProblem(await client.send("GET", "/account/session", { headers: [cookie] }), 401, "invalid_session");
    expectProblem(await client.send("GET", "/account/api-keys", { headers: [cookie] }), 401, "invalid_session");
  });
});

function expectProblem(answer: Answer, status: number, code: string) {
  expect(answer.status, answer.text).toBe(status);
  expect((answer.body as { code: string }).code).toBe(code);
}

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}
