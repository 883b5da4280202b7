/**
 * The reference page as HTTP, without a browser (docs-browser.test.ts renders it): addresses
 * relative to the page's own URL, its security headers, and assets cached under their content hash.
 */
import { describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { inProcess } from "./http.js";
import { makeWorld } from "./world.js";

const w = await makeWorld();
const client = inProcess(w.app);

/** The page's asset and document addresses, as written in its HTML. */
async function addresses(path: string) {
  const page = await client.send("GET", path);
  expect(page.status).toBe(200);
  return [...page.text.matchAll(/(?:src|href|data-openapi)="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.startsWith("#") && !a.startsWith("data:"));
}

describe("GET /api/v1/docs", () => {
  it("names its assets and the document relative to itself, never from the root, so a stripped prefix does not matter", async () => {
    const flat = await addresses(`${apiBasePath}/docs`);
    expect(flat.map((a) => a.replace(/\?v=[0-9a-f]{16}$/, "")).sort()).toEqual(["docs/reference.css", "docs/reference.js", "openapi.json", "openapi.json"]);
    // h3 routes docs/ here too: one level deeper, so one level up.
    const slashed = await addresses(`${apiBasePath}/docs/`);
    expect(slashed).toEqual(flat.map((a) => `../${a}`));
  });

  it("sends a strict Content-Security-Policy and refuses framing", async () => {
    const page = await client.send("GET", `${apiBasePath}/docs`);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
    );
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.text).not.toMatch(/<script>|<style|style=|\son[a-z]+=/i);
  });

  it("serves the script and stylesheet for good under their content hash, GET and HEAD only", async () => {
    for (const address of (await addresses(`${apiBasePath}/docs`)).filter((a) => a.startsWith("docs/"))) {
      const asset = await client.send("GET", `${apiBasePath}/${address}`);
      expect(asset.status, address).toBe(200);
      expect(asset.headers.get("content-type")).toBe(address.includes(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
      expect((await client.send("HEAD", `${apiBasePath}/${address}`)).status).toBe(200);
      expect((await client.send("POST", `${apiBasePath}/${address}`)).status).toBe(405);
    }
  });
});
