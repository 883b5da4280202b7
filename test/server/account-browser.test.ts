/**
 * The account page in a real browser (Debian's headless Chromium, driven by playwright-core), under
 * its strict Content-Security-Policy: a person signs in, creates a key, reads its secret from the
 * page once and uses it on the API, finds it gone after a reload, revokes the key and sees the API
 * refuse it; the form offers only what the person holds and the server refuses a forged request
 * sent through the page's own call; throttled sign-ins say when to retry; sessions end on
 * sign-out and on a password change; a required expiry is asked for within the policy's lifetime;
 * the page works mounted under an h3 prefix and an Express one, and on a phone.
 * With CASEKIT_SCREENSHOTS=<folder> it also saves the README's screenshots there.
 * Without Chromium the test skips locally with a message; in CI (CI=true) it never skips.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, serveMounted } from "../helpers/browser-hosts.js";
import type { MountedHosts } from "../helpers/browser-hosts.js";
import { dataScopes } from "../../core/access/scopes.js";
import type { User } from "../../core/index.js";
import { addKey } from "../helpers/kit.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

const haveBrowser = chromiumAvailable("the account page");
const screenshots = process.env.CASEKIT_SCREENSHOTS;

const password = "correct horse battery staple";

/** Polls until the page shows the outcome: a request and a re-render, unhurried on a busy machine. */
const settled = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });

describe.skipIf(!haveBrowser)("the account page in headless Chromium", () => {
  let browser: Browser;
  let w: World;
  let root: string;
  let underH3: string;
  let underExpress: string;
  let hosts: MountedHosts | undefined;
  let people = 0;

  beforeAll(async () => {
    w = await makeWorld();
    hosts = await serveMounted(w.kit, w.app);
    ({ root, underH3, underExpress } = hosts);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await hosts?.close();
  });

  /** A new analyst (clearance 2) with a password, so tests never share a session or a throttle. */
  async function analyst(name?: string): Promise<User> {
    people += 1;
    const email = name ? `${name.split(" ")[0]!.toLowerCase()}${people}@acme.test` : `analyst${people}@acme.test`;
    return w.kit.users.create(w.admin, { email, name: name ?? `Ana Lyst ${people}`, password, role: "analyst", tlpClearance: 2 });
  }

  /** A fresh browser profile and page that record errors and every address asked for. */
  async function watchedPage(viewport = { width: 1280, height: 800 }) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on("console", (message) => {
      // A 4xx the page asked for and shows is no page error; anything else is.
      if ((message.type() === "error" || message.type() === "warning") && !message.text().startsWith("Failed to load resource")) {
        problems.push(`console ${message.type()}: ${message.text()}`);
      }
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("request", (request) => requested.push(request.url()));
    return { context, page, problems, requested };
  }

  const activeId = (page: Page) => page.evaluate<string | undefined>("document.activeElement?.id");

  async function signIn(page: Page, base: string, user: User, secret = password) {
    await page.goto(`${base}/account/`);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(secret);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  async function signedIn(page: Page) {
    await settled(() => page.locator("#keys-view").isVisible()).toBe(true);
    await settled(() => activeId(page)).toBe("keys-title");
  }

  const card = (page: Page, name: string) => page.locator("li.key", { has: page.locator("h3", { hasText: new RegExp(`^${name}$`) }) });

  /** Fills and sends the create form; answers the secret the page shows. */
  async function createKey(page: Page, name: string, scopes: string[], description = `Made by the browser test: ${name}`): Promise<string> {
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("Description").fill(description);
    for (const scope of scopes) await page.getByLabel(scope, { exact: true }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    await settled(() => page.locator("#secret-panel").isVisible()).toBe(true);
    await settled(() => activeId(page)).toBe("secret-title");
    expect(await page.locator("#secret-panel").textContent()).toContain("you will not see this again");
    return page.getByLabel(`Secret of ${name}`).inputValue();
  }

  /** Answers the confirmation dialog of one action on one key. */
  async function act(page: Page, name: string, verb: string) {
    await card(page, name).getByRole("button", { name: `${verb} ${name}` }).click();
    const dialog = page.getByRole("dialog");
    await settled(() => dialog.isVisible()).toBe(true);
    expect(await dialog.locator("h2").textContent()).toBe(`${verb} the key ${name}?`);
    await dialog.getByRole("button", { name: `${verb} key` }).click();
  }

  const health = (base: string, secret: string) => fetch(`${base}/api/v1/health`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);

  it("signs in, creates a key, shows its secret once (copy button included), the key works, a reload forgets the secret, revoking it makes the API refuse it", async () => {
    const { context, page, problems, requested } = await watchedPage();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: root });
    const user = await analyst();
    // The address without its slash leads to the page.
    const answer = await page.goto(`${root}/account`);
    expect(page.url()).toBe(`${root}/account/`);
    const csp = answer!.headers()["content-security-policy"]!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("require-trusted-types-for 'script'");
    expect(csp).not.toContain("unsafe");
    await settled(() => page.locator("#sign-in-view").isVisible()).toBe(true);
    await settled(() => activeId(page)).toBe("email");

    // A wrong password: the problem's title and detail, focus back on the password.
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    const refusal = page.locator("#sign-in-problem");
    await settled(() => refusal.isVisible()).toBe(true);
    expect(await refusal.getAttribute("role")).toBe("alert");
    expect(await refusal.locator(".problem-title").textContent()).toBe("The email or the password is wrong");
    expect(await refusal.locator(".problem-detail").count()).toBe(0);
    await settled(() => activeId(page)).toBe("password");

    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await signedIn(page);
    expect(await page.locator("#who").textContent()).toContain(user.email);
    // The session cookie: HttpOnly, SameSite=Strict, for the account area only (plain http here: not Secure).
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: "casekit_session", path: "/account", httpOnly: true, sameSite: "Strict", secure: false });

    const secret = await createKey(page, "SIEM ingestion", ["cases:read", "alerts:write"]);
    expect(secret).toMatch(/^ck_/);
    await page.getByRole("button", { name: "Copy" }).click();
    await settled(() => page.locator("#copy-status").textContent()).toBe("Copied to the clipboard.");
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);
    // The list shows the key by its start, never its secret.
    const row = card(page, "SIEM ingestion");
    await settled(() => row.count()).toBe(1);
    const rowText = (await row.textContent())!;
    for (const shown of ["standard", "cases:read", "alerts:write", "TLP:AMBER", "active", "Never"]) expect(rowText).toContain(shown);
    expect(rowText).not.toContain(secret);
    const [stored] = (await w.kit.keys.list(w.admin, { userId: user.id })).data;
    expect(stored).toMatchObject({ name: "SIEM ingestion", scopes: ["cases:read", "alerts:write"], tlpClearance: 2, tier: "standard" });
    expect(rowText).toContain(stored!.start);

    expect(await health(root, secret)).toBe(200);

    // "Done" forgets the secret and moves to the key in the list.
    await page.getByRole("button", { name: "Done, I have stored it" }).click();
    expect(await page.locator("#secret-panel").isVisible()).toBe(false);
    await settled(() => page.evaluate<string | null>("document.activeElement?.textContent")).toBe("SIEM ingestion");

    await page.reload();
    await signedIn(page);
    expect(await page.locator("#secret-panel").isVisible()).toBe(false);
    expect(await page.content()).not.toContain(secret);
    expect(await page.evaluate("[localStorage.length, sessionStorage.length, document.cookie]")).toEqual([0, 0, ""]);
    expect(await card(page, "SIEM ingestion").textContent()).not.toContain("Last usedNever");

    await act(page, "SIEM ingestion", "Revoke");
    await settled(() => card(page, "SIEM ingestion").getAttribute("data-status")).toBe("revoked");
    await settled(() => page.locator("#notice").textContent()).toBe("Key SIEM ingestion revoked.");
    await settled(() => page.evaluate<string | null>("document.activeElement?.textContent")).toBe("SIEM ingestion");
    expect(await health(root, secret)).toBe(401);
    // A revoked key offers delete only.
    expect(await card(page, "SIEM ingestion").getByRole("button").allTextContents()).toEqual(["Delete"]);

    expect(problems).toEqual([]);
    for (const url of requested) expect(new URL(url).origin, url).toBe(root);
    await context.close();
  }, 90_000);

  it("offers only the scopes, clearance and tiers the person holds, and the server refuses a forged request sent through the page's own call", async () => {
    const { context, page, problems } = await watchedPage();
    const user = await analyst();
    await signIn(page, root, user);
    await signedIn(page);
    const offered = await page.locator("#scope-boxes input").evaluateAll((boxes) => boxes.map((b) => b.getAttribute("value")));
    expect(offered).toEqual([...dataScopes]);
    expect(await page.getByLabel("keys:write").count()).toBe(0);
    expect(await page.locator("#tlp-choices label").allTextContents()).toEqual(["0 TLP:CLEAR", "1 TLP:GREEN", "2 TLP:AMBER"]);
    expect(await page.locator("#tier-choices label").allTextContents()).toEqual(["basic", "standard", "professional", "enterprise"]);

    // The page's own request, changed on the way: a scope the analyst's role does not hold.
    let forged = 0;
    await page.route("**/account/api-keys", async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      forged += 1;
      const body = JSON.parse(route.request().postData()!) as { scopes: string[] };
      await route.continue({ postData: JSON.stringify({ ...body, scopes: [...body.scopes, "keys:write"] }) });
    });
    await page.getByLabel("Name", { exact: true }).fill("Forged");
    await page.getByLabel("cases:read", { exact: true }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const refusal = page.locator("#create-problem");
    await settled(() => refusal.isVisible()).toBe(true);
    expect(forged).toBe(1);
    expect(await refusal.locator(".problem-title").textContent()).toBe("The API key lacks the scope for this operation");
    expect(await refusal.locator(".problem-detail").textContent()).toBe("You cannot grant scopes you do not hold: keys:write");
    expect(await page.locator("#secret-panel").isVisible()).toBe(false);
    expect((await w.kit.keys.list(w.admin, { userId: user.id })).data).toEqual([]);

    // Nothing chosen: the page says what is missing and sends nothing.
    await page.unroute("**/account/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("");
    await page.getByLabel("cases:read", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await refusal.textContent()).toContain("choose at least one scope");
    await settled(() => activeId(page)).toBe("key-name");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("is worked by keyboard: the confirmation dialog opens on the asking button, Escape cancels back to it, and suspend, resume and delete each move focus and announce", async () => {
    const { context, page, problems } = await watchedPage();
    const user = await analyst();
    await signIn(page, root, user);
    await signedIn(page);
    const secret = await createKey(page, "Ticketing", ["tasks:read"]);
    await page.getByRole("button", { name: "Done, I have stored it" }).click();

    const suspend = card(page, "Ticketing").getByRole("button", { name: "Suspend Ticketing" });
    await suspend.focus();
    await page.keyboard.press("Enter");
    await settled(() => page.getByRole("dialog").isVisible()).toBe(true);
    await settled(() => activeId(page)).toBe("confirm-cancel");
    await page.keyboard.press("Escape");
    await settled(() => page.getByRole("dialog").isVisible()).toBe(false);
    await settled(() => page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')")).toBe("Suspend Ticketing");
    expect(await health(root, secret)).toBe(200);

    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await settled(() => card(page, "Ticketing").getAttribute("data-status")).toBe("suspended");
    expect(await page.locator("#notice").getAttribute("aria-live")).toBe("polite");
    await settled(() => page.locator("#notice").textContent()).toBe("Key Ticketing suspended.");
    expect(await health(root, secret)).toBe(401);

    await act(page, "Ticketing", "Resume");
    await settled(() => card(page, "Ticketing").getAttribute("data-status")).toBe("active");
    expect(await health(root, secret)).toBe(200);

    await act(page, "Ticketing", "Delete");
    await settled(() => card(page, "Ticketing").count()).toBe(0);
    await settled(() => activeId(page)).toBe("list-title");
    await settled(() => page.locator("#notice").textContent()).toBe("Key Ticketing deleted.");
    expect(await page.locator("#list-empty").isVisible()).toBe(true);
    expect(await health(root, secret)).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("ends the session on sign-out and on a password change, and shows the throttle's refusal with when to retry", async () => {
    const { context, page, problems } = await watchedPage();
    const user = await analyst();
    await signIn(page, root, user);
    await signedIn(page);
    const session = () => page.evaluate<number>("fetch('session', { cache: 'no-store' }).then((r) => r.status)");
    expect(await session()).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await settled(() => page.locator("#sign-in-view").isVisible()).toBe(true);
    await settled(() => page.locator("#notice").textContent()).toBe("You are signed out.");
    await settled(() => activeId(page)).toBe("email");
    expect(await session()).toBe(401);

    // A password set by an admin ends the session: the next action returns to the sign-in form.
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await signedIn(page);
    await w.kit.users.update(w.admin, user.id, { password: "a brand new password" });
    await page.getByLabel("Name", { exact: true }).fill("After the reset");
    await page.getByLabel("cases:read", { exact: true }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    await settled(() => page.locator("#sign-in-view").isVisible()).toBe(true);
    await settled(() => page.locator("#notice").textContent()).toBe("Your session has ended. Sign in again.");
    expect(await session()).toBe(401);

    // Five failures for one email from one address: the sixth attempt is refused, saying for how long.
    for (let attempt = 0; attempt < 6; attempt++) {
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(`wrong guess ${attempt}`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await settled(() => page.locator("#sign-in-problem .problem-title").textContent()).not.toBe("");
      await settled(() => page.locator("#sign-in-form button").isDisabled()).toBe(false);
    }
    const refusal = page.locator("#sign-in-problem");
    expect(await refusal.locator(".problem-title").textContent()).toBe("Too many requests");
    expect(await refusal.locator(".problem-detail").textContent()).toBe("Too many failed sign-ins for this account from this address; try again later");
    expect(await refusal.locator(".problem-retry").textContent()).toBe("Try again in 15 minutes.");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  for (const [where, base] of [
    ["mounted under an h3 prefix (mountCaseKit)", () => underH3],
    ["mounted under an Express prefix that strips the path", () => underExpress],
  ] as const) {
    it(`works ${where}: the page, its assets, its calls and the session cookie all stay under the prefix`, async () => {
      const { context, page, problems, requested } = await watchedPage();
      const prefix = new URL(base()).pathname;
      const user = await analyst();
      await signIn(page, base(), user);
      await signedIn(page);
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({ name: "casekit_session", path: `${prefix}/account` });
      const secret = await createKey(page, "Mounted", ["cases:read"]);
      expect(await health(base(), secret)).toBe(200);
      await page.getByRole("button", { name: "Done, I have stored it" }).click();
      await act(page, "Mounted", "Revoke");
      await settled(() => card(page, "Mounted").getAttribute("data-status")).toBe("revoked");
      expect(await health(base(), secret)).toBe(401);
      for (const url of requested) expect(new URL(url).pathname, url).toMatch(new RegExp(`^${prefix}/account/`));
      expect(problems).toEqual([]);
      await context.close();
    }, 90_000);
  }

  it("lists 50 keys at a time: Show more loads the next ones and moves to the first of them", async () => {
    const { context, page, problems } = await watchedPage();
    const user = await analyst();
    for (let n = 1; n <= 53; n++) await addKey(w.kit, user, { name: `Key ${n}`, scopes: ["cases:read"], tlpClearance: 2 });
    await signIn(page, root, user);
    await signedIn(page);
    expect(await page.locator("li.key").count()).toBe(50);
    await page.getByRole("button", { name: "Show more keys" }).click();
    await settled(() => page.locator("li.key").count()).toBe(53);
    expect(await page.getByRole("button", { name: "Show more keys" }).isVisible()).toBe(false);
    // Newest first: the next after the first 50 is Key 3.
    await settled(() => page.evaluate<string | null>("document.activeElement?.textContent")).toBe("Key 3");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("asks for an expiry date when the organization's policy requires one, within its longest lifetime", async () => {
    const { context, page, problems } = await watchedPage();
    const user = await analyst();
    await w.kit.organizations.updatePolicy(w.admin, { maxKeyLifetimeDays: 30 });
    try {
      await signIn(page, root, user);
      await signedIn(page);
      const expiry = page.getByLabel("Expires on");
      expect(await expiry.getAttribute("required")).toBe("");
      expect(await page.locator("#expiry-hint").textContent()).toContain("at most 30 days");
      // Without a date the page says so and sends nothing.
      await page.getByLabel("Name", { exact: true }).fill("Expiring");
      await page.getByLabel("cases:read", { exact: true }).check();
      await page.getByRole("button", { name: "Create key" }).click();
      expect(await page.locator("#create-problem").textContent()).toContain("choose an expiry date");
      await settled(() => activeId(page)).toBe("key-expiry");
      // The server's clock is the test's (2026-03-01): a day within 30 of it; past 30 the server refuses.
      await expiry.fill("2026-04-15");
      await page.getByRole("button", { name: "Create key" }).click();
      await settled(() => page.locator("#create-problem .problem-detail").textContent()).toBe("The organization allows keys to live at most 30 days");
      await expiry.fill("2026-03-20");
      await page.getByRole("button", { name: "Create key" }).click();
      await settled(() => page.locator("#secret-panel").isVisible()).toBe(true);
      const [key] = (await w.kit.keys.list(w.admin, { userId: user.id })).data;
      expect(key!.expiresAt).toBe(new Date("2026-03-20T00:00:00").toISOString());
      expect(await card(page, "Expiring").textContent()).toContain(`Expires${key!.expiresAt!.slice(0, 16).replace("T", " ")} UTC`);
      expect(problems).toEqual([]);
    } finally {
      await w.kit.organizations.updatePolicy(w.admin, { maxKeyLifetimeDays: null });
      await context.close();
    }
  }, 90_000);

  for (const [label, viewport] of [
    ["wide", { width: 1280, height: 800 }],
    ["phone", { width: 360, height: 740 }],
  ] as const) {
    it(`reads on a ${label} screen (${viewport.width} px): nothing wider than the screen, in either view`, async () => {
      const { context, page, problems } = await watchedPage(viewport);
      const user = await analyst("Dana Reyes");
      await page.goto(`${root}/account/`);
      await settled(() => page.locator("#sign-in-view").isVisible()).toBe(true);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(viewport.width);
      if (screenshots) {
        mkdirSync(screenshots, { recursive: true });
        await page.screenshot({ path: path.join(screenshots, `account-sign-in-${label}.png`) });
      }
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await signedIn(page);
      await createKey(page, "Ticketing sync", ["cases:read", "tasks:read", "tasks:write"], "Two-way sync with the service desk");
      await page.getByRole("button", { name: "Done, I have stored it" }).click();
      await createKey(page, "SIEM ingestion", ["alerts:write"], "Forwards correlated alerts");
      await page.getByRole("button", { name: "Done, I have stored it" }).click();
      await act(page, "Ticketing sync", "Suspend");
      await settled(() => card(page, "Ticketing sync").getAttribute("data-status")).toBe("suspended");
      await createKey(page, "Threat intel feed", ["observables:read", "observables:write"], "Nightly indicator import");
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(viewport.width);
      // Wide: the secret shown once above the list; phone: the list itself.
      if (label === "phone") await page.getByRole("button", { name: "Done, I have stored it" }).click();
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(viewport.width);
      if (screenshots) {
        if (label === "wide") await page.evaluate("window.scrollTo(0, 0)");
        await page.screenshot({ path: path.join(screenshots, `account-keys-${label}.png`) });
      }
      expect(problems).toEqual([]);
      await context.close();
    }, 90_000);
  }
});

