/**
 * The reference page's script is browser JavaScript kept in a string (server/docs-page/script.ts),
 * so the project's lint never sees it: lint it here as the browser runs it (a classic script,
 * ESLint's recommended rules, only the browser globals it is meant to touch), and hold the rules
 * the page promises: no HTML strings, no storage, no address but its own.
 */
import js from "@eslint/js";
import { Linter } from "eslint";
import { describe, expect, it } from "vitest";
import { referenceScript } from "../../server/docs-page/script.js";
import { referenceStyle } from "../../server/docs-page/style.js";

/** Every global the script may use; anything else is a no-undef error. */
const browserGlobals = ["document", "window", "location", "history", "fetch", "URL", "URLSearchParams"];

describe("the reference page's script", () => {
  it("passes ESLint's recommended rules as a browser script", () => {
    const messages = new Linter({ configType: "flat" }).verify(referenceScript, [
      {
        ...js.configs.recommended,
        languageOptions: {
          ecmaVersion: 2022,
          sourceType: "script",
          globals: Object.fromEntries(browserGlobals.map((name) => [name, "readonly"])),
        },
      },
    ]);
    expect(messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? ""} ${m.message}`)).toEqual([]);
  });

  it("builds no HTML from strings, stores nothing, and names no address of its own", () => {
    for (const forbidden of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "localStorage", "sessionStorage", "indexedDB", "document.cookie", "sendBeacon", "http://", "https://", "//cdn"]) {
      expect(referenceScript, forbidden).not.toContain(forbidden);
    }
  });

  it("and the stylesheet loads nothing (no url(), no @import)", () => {
    expect(referenceStyle).not.toMatch(/url\(|@import/i);
  });
});
