/**
 * The API reference page in a real browser (Debian's headless Chromium, driven by playwright-core):
 * with its strict Content-Security-Policy (Trusted Types included) it renders every operation of
 * the served document, filters them, opens a deep link, calls the API from "Try it" without
 * storing the key, logs no console error and fetches nothing but its own origin — at the root,
 * mounted under an h3 prefix, and under an Express prefix (which strips the path before casekit
 * sees it). Without Chromium the test skips locally with a message; in CI (CI=true) it never skips.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, serveMounted } from "../helpers/browser-hosts.js";
import type { MountedHosts } from "../helpers/browser-hosts.js";
import { apiBasePath } from "../../server/index.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

const haveBrowser = chromiumAvailable("the docs page");

interface Operation {
  id: string;
  method: string;
  path: string;
  summary: string;
  tag: string;
}

/** A page that records what it asks for and every error or warning it reports. */
async function watchedPage(browser: Browser, viewport?: { width: number; height: number }) {
  const page = await browser.newPage(viewport ? { viewport } : {});
  const problems: string[] = [];
  const requested: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`));
  page.on("request", (request) => requested.push(request.url()));
  return { page, problems, requested };
}

describe.skipIf(!haveBrowser)("the API reference page in headless Chromium", () => {
  let browser: Browser;
  let w: World;
  let hosts: MountedHosts | undefined;
  let root: string;
  let underH3: string;
  let underExpress: string;
  let operations: Operation[];

  beforeAll(async () => {
    w = await makeWorld();
    hosts = await serveMounted(w.kit, w.app);
    ({ root, underH3, underExpress } = hosts);

    const document = (await (await fetch(`${root}${apiBasePath}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; summary: string; tags: string[] }>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ id: op.operationId, method, path, summary: op.summary, tag: op.tags[0]! })),
    );
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await hosts?.close();
  });

  /** Opens the page under `base` and waits until the operations are rendered. */
  async function open(page: Page, base: string, suffix = "") {
    const answer = await page.goto(`${base}${apiBasePath}/docs${suffix}`);
    expect(answer?.status()).toBe(200);
    await expect.poll(() => page.locator("article.op").count(), { timeout: 30_000 }).toBe(operations.length);
    return answer!;
  }

  const visibleOperations = (page: Page) =>
    page.locator("article.op:visible").evaluateAll((articles) => articles.map((a) => a.id));

  it("loads without a key under its strict CSP, lists every operation by tag, logs no error and fetches only its own assets and document", async () => {
    const { page, problems, requested } = await watchedPage(browser);
    const answer = await open(page, root);
    const csp = answer.headers()["content-security-policy"]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("require-trusted-types-for 'script'");
    expect(csp).not.toContain("unsafe");

    await expect.poll(() => page.locator("h1").textContent()).toBe("casekit API reference");
    // Every operation of the document has its article: method, path and summary as the page shows them.
    const shown = await page.locator("article.op").evaluateAll((articles) =>
      articles.map((a) => ({
        id: a.id,
        method: a.querySelector(".method")?.textContent?.toLowerCase(),
        path: a.querySelector(".path")?.getAttribute("data-path"),
        summary: a.querySelector(".op-summary")?.textContent,
        tag: a.closest("section")?.querySelector("h2")?.textContent,
      })),
    );
    expect(shown.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      operations.map(({ id, method, path, summary, tag }) => ({ id, method, path, summary, tag })).sort((a, b) => a.id.localeCompare(b.id)),
    );
    await expect.poll(() => page.locator("#filter-count").textContent()).toBe(`${operations.length} operations.`);
    // Assistive technology sees the structure: a heading per tag and per operation, labelled fields.
    expect(await page.getByRole("heading", { level: 3 }).count()).toBe(operations.length);
    expect(await page.getByRole("heading", { level: 2 }).allTextContents()).toEqual(expect.arrayContaining([...new Set(operations.map((o) => o.tag))]));
    expect(await page.getByLabel("Filter operations").count()).toBe(1);
    expect(await page.getByLabel("API key for Try it").getAttribute("type")).toBe("password");

    expect(problems).toEqual([]);
    for (const url of requested) expect(new URL(url).origin, url).toBe(root);
    expect(requested.map((url) => new URL(url).pathname).sort()).toEqual(
      [`${apiBasePath}/docs`, `${apiBasePath}/docs/reference.css`, `${apiBasePath}/docs/reference.js`, `${apiBasePath}/openapi.json`].sort(),
    );
    await page.close();
  }, 90_000);

  it("filters operations by method, path, summary, id or tag, and Escape clears the filter", async () => {
    const { page, problems } = await watchedPage(browser);
    await open(page, root);
    const matching = (terms: string[]) =>
      operations
        .filter((op) => terms.every((t) => [op.method, op.path, op.summary, op.id, op.tag].join(" ").toLowerCase().includes(t)))
        .map((op) => op.id)
        .sort();

    const filter = page.getByLabel("Filter operations");
    await filter.fill("webhook");
    const webhooks = matching(["webhook"]);
    expect(webhooks.length).toBeGreaterThan(3);
    expect((await visibleOperations(page)).sort()).toEqual(webhooks);
    expect(await page.locator("#filter-count").textContent()).toBe(`${webhooks.length} of ${operations.length} operations match.`);
    // Sections left without a match are hidden too.
    expect(await page.locator("section.tag:visible h2").allTextContents()).toEqual(["Webhooks"]);

    await filter.fill("delete /cases");
    expect((await visibleOperations(page)).sort()).toEqual(matching(["delete", "/cases"]));
    await filter.fill("no-such-operation");
    expect(await visibleOperations(page)).toEqual([]);
    await filter.press("Escape");
    expect(await visibleOperations(page)).toHaveLength(operations.length);

    // "/" moves the keyboard to the filter.
    await page.locator("body").click({ position: { x: 1, y: 1 } });
    await page.keyboard.press("/");
    expect(await page.evaluate("document.activeElement?.id")).toBe("filter");
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("lists an enum's values (a webhook's method)", async () => {
    const { page, problems } = await watchedPage(browser);
    await open(page, root, "#createWebhook");
    const webhook = page.locator("article#createWebhook");
    await expect.poll(() => webhook.locator("details.op-details").evaluate((d) => d.hasAttribute("open"))).toBe(true);
    const method = webhook.locator(".field", { has: page.locator(".field-name", { hasText: /^method$/ }) }).first();
    expect(await method.locator(".facts").textContent()).toMatch(/one of POST, PUT, PATCH/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("opens a deep link (#operationId) with its body, parameters and $ref-resolved schemas, and names the operation opened by hand in the address", async () => {
    const { page, problems } = await watchedPage(browser);
    await open(page, root, "#createCase");
    const article = page.locator("article#createCase");
    await expect.poll(() => article.locator("details.op-details").evaluate((d) => d.hasAttribute("open"))).toBe(true);
    expect(await page.evaluate("document.activeElement?.closest('article')?.id")).toBe("createCase");
    // The request body: CaseCreate resolved, its required fields marked, its checks and example shown.
    const title = article.locator(".field", { has: page.locator(".field-name", { hasText: /^title$/ }) }).first();
    expect(await title.locator(".required").textContent()).toBe("required");
    expect(await title.locator(".facts").textContent()).toContain("length 1–500");
    // An integer's bounds and a field's description (statusValue names its organization's lifecycle).
    const severity = article.locator(".field", { has: page.locator(".field-name", { hasText: /^severity$/ }) }).first();
    expect(await severity.locator(".facts").textContent()).toMatch(/1.*4/);
    const statusField = article.locator(".field", { has: page.locator(".field-name", { hasText: /^statusValue$/ }) }).first();
    expect(await statusField.textContent()).toContain("GET /lifecycles/case");

    expect(await article.locator("figure.example").first().textContent()).toContain("Phishing wave against finance");
    expect(await article.locator("h4").allTextContents()).toEqual(["Security", "Request body", "Responses", "Try it"]);
    expect(await article.locator(".security").textContent()).toContain("cases:write");
    // A nested $ref opens on demand: the tags' items are CaseTagInput objects.
    const tags = article.locator(".op-body > .media .field", { has: page.locator(".field-name", { hasText: /^tags$/ }) }).first();
    await tags.locator("summary").first().click();
    await expect.poll(() => tags.locator(".field-name").allTextContents()).toContain("name");
    // An error answer: a $ref to a shared response, its Problem schema resolved.
    const notAllowed = article.locator("details.response", { has: page.locator("h5 code", { hasText: /^403$/ }) });
    await notAllowed.locator("summary").first().click();
    await expect.poll(() => notAllowed.locator(".field-name").allTextContents()).toEqual(expect.arrayContaining(["X-Request-Id", "type", "code", "detail"]));

    // A oneOf is shown as its alternatives.
    await page.evaluate("location.hash = '#bulkAssignAlerts'");
    const bulk = page.locator("article#bulkAssignAlerts");
    await expect.poll(() => bulk.locator(".op-body").count()).toBe(1);
    expect(await bulk.locator(".op-body > .media").first().textContent()).toContain("Exactly one of:");

    // Opening another one by hand puts its id in the address.
    await page.locator("article#listCases summary").first().click();
    await expect.poll(() => page.evaluate("location.hash")).toBe("#listCases");
    expect(await page.locator("article#listCases .field-name", { hasText: /^limit$/ }).count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  for (const [where, base] of [
    ["mounted under an h3 prefix", () => underH3],
    ["mounted under an Express prefix that strips the path", () => underExpress],
    ["asked for with a trailing slash", () => root],
  ] as const) {
    it(`works ${where}: assets, document and Try it all follow the page's own address; the key is never stored`, async () => {
      const { page, problems, requested } = await watchedPage(browser);
      const prefix = new URL(base()).pathname.replace(/\/$/, "");
      await open(page, base(), where.includes("trailing") ? "/#createCase" : "#createCase");
      await expect.poll(() => page.locator("article#createCase .op-body").count()).toBe(1);

      await page.getByLabel("API key for Try it").fill(w.adminKey);
      const form = page.locator("article#createCase form.try");
      await form.getByLabel("Body (JSON)").fill(JSON.stringify({ title: `Made from the docs page ${where}`, severity: 2 }));
      await form.getByRole("button", { name: "Send POST request" }).click();
      await expect.poll(() => form.locator(".try-status").textContent(), { timeout: 10_000 }).toContain("200");
      const created = JSON.parse((await form.locator(".try-result pre").textContent())!) as { id: string; title: string };
      expect(created.title).toBe(`Made from the docs page ${where}`);
      expect((await w.kit.cases.get(w.admin, created.id)).title).toBe(created.title);

      // A GET with a path parameter, through the same key.
      await page.evaluate("location.hash = '#getCase'");
      const get = page.locator("article#getCase form.try");
      await get.getByLabel("id (path, required)").fill(created.id);
      await get.getByRole("button", { name: "Send GET request" }).click();
      await expect.poll(() => get.locator(".try-status").textContent(), { timeout: 10_000 }).toContain("200");

      // The key lives in the page's memory only.
      expect(await page.evaluate("[localStorage.length, sessionStorage.length, document.cookie]")).toEqual([0, 0, ""]);
      const paths = requested.map((url) => new URL(url).pathname);
      for (const url of requested) expect(new URL(url).origin, url).toBe(new URL(base()).origin);
      expect(paths).toContain(`${prefix}${apiBasePath}/openapi.json`);
      expect(paths).toContain(`${prefix}${apiBasePath}/docs/reference.js`);
      expect(paths).toContain(`${prefix}${apiBasePath}/cases`);
      expect(paths).toContain(`${prefix}${apiBasePath}/cases/${created.id}`);
      expect(problems).toEqual([]);
      await page.close();
    }, 90_000);
  }

  it("reads on a phone: one column, nothing wider than the screen", async () => {
    const { page, problems } = await watchedPage(browser, { width: 360, height: 740 });
    await open(page, root, "#createCase");
    await expect.poll(() => page.locator("article#createCase .op-body").count()).toBe(1);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
