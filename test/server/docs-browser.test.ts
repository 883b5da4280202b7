/**
 * The API reference page in a real browser (Debian's headless Chromium, driven by playwright-core):
 * it loads with its strict Content-Security-Policy, lists every operation of the served document,
 * logs no console error, and fetches nothing from anywhere but the casekit server on 127.0.0.1.
 * Without Chromium the test skips locally with a message; in CI (CI=true) it never skips.
 */
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { listening } from "./http.js";
import { makeWorld } from "./world.js";

const executablePath = process.env.CASEKIT_CHROMIUM ?? "/usr/bin/chromium";
const haveBrowser = existsSync(executablePath);
if (!haveBrowser && process.env.CI) throw new Error(`CI runs the docs page in Chromium, but ${executablePath} is missing (.ci/run installs Debian's chromium)`);
if (!haveBrowser) console.warn(`docs-browser: skipped, no Chromium at ${executablePath} (apt-get install chromium, or set CASEKIT_CHROMIUM)`);

const launchArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

interface Operation {
  method: string;
  path: string;
}

describe.skipIf(!haveBrowser)("the API reference page in headless Chromium", () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof listening>>;
  let operations: Operation[];

  beforeAll(async () => {
    const w = await makeWorld();
    server = await listening(w.app);
    const document = (await server.send("GET", `${apiBasePath}/openapi.json`)).body as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method, path })));
    browser = await chromium.launch({ executablePath, args: launchArgs });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("loads without a key, lists every operation, logs no error and fetches nothing from elsewhere", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`));
    page.on("request", (request) => requested.push(request.url()));

    const origin = `http://127.0.0.1:${server.port}`;
    const answer = await page.goto(`${origin}${apiBasePath}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()["content-security-policy"]).toMatch(/^default-src 'self'/);

    await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator(".opblock").count(), { timeout: 10_000 }).toBe(operations.length);
    await expect.poll(() => page.locator(".info .title").first().textContent()).toContain("casekit API");

    // Every operation of the document has its block: method and path as Swagger UI shows them.
    const shown = await page.locator(".opblock").evaluateAll((blocks) =>
      blocks.map((block) => {
        const method = block.querySelector(".opblock-summary-method")?.textContent ?? "";
        const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "";
        return `${method.toLowerCase()} ${path}`;
      }),
    );
    expect(shown.sort()).toEqual(operations.map((o) => `${o.method} ${o.path}`).sort());
    expect(await page.locator('.opblock-post .opblock-summary-path[data-path="/cases"]').isVisible()).toBe(true);

    expect(problems).toEqual([]);
    expect(requested.length).toBeGreaterThanOrEqual(4);
    for (const url of requested) expect(new URL(url).origin, url).toBe(origin);
    expect(requested).toContain(`${origin}${apiBasePath}/openapi.json`);
    await page.close();
  }, 90_000);
});
