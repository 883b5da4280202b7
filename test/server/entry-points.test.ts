// package.json "exports", tsup.config.ts and tsconfig.json "paths" name the same entry points, so
// `casekit/…` means the same module in a user's install (dist/) as in our examples and tests
// (sources, without a build).
import { describe, expect, it } from "vitest";
import { entryPoints, tsconfigPaths, tsupConfig } from "../helpers/entry-points.js";

describe("the package's entry points", () => {
  const entries = entryPoints();

  it("are built with declarations named like the code", () => {
    expect(entries.length).toBeGreaterThan(5);
    for (const entry of entries) {
      expect(tsupConfig.dts.entry[entry.name], entry.specifier).toBe(entry.source);
      expect(entry.types, entry.specifier).toBe(`./dist/${entry.name}.d.ts`);
    }
  });

  it("resolve to their sources through tsconfig paths, all but the conformance suite", () => {
    const expected = Object.fromEntries(
      entries.filter((entry) => entry.specifier !== "casekit/conformance").map((entry) => [entry.specifier, [`./${entry.source}`]]),
    );
    // casekit/conformance stays on the package's own exports: test/package proves the built suite loads.
    expect(tsconfigPaths).toEqual(expected);
  });

  it("offer casekit/express, casekit/hono and casekit/fastify, importing none of those frameworks' code but Hono's route helper", async () => {
    const { readFile } = await import("node:fs/promises");
    for (const framework of ["express", "hono", "fastify"]) {
      const entry = entries.find((e) => e.specifier === `casekit/${framework}`);
      expect(entry, framework).toBeDefined();
      const text = await readFile(new URL(`../../${entry!.source}`, import.meta.url), "utf8");
      const runtimeImports = [...text.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gm)].map((m) => m[1]);
      expect(runtimeImports.filter((from) => /^(express|fastify|hono)(\/|$)/.test(from!)), framework).toEqual(framework === "hono" ? ["hono/route"] : []);
    }
  });
});
