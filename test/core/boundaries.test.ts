import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const coreDir = new URL("../../core/", import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

describe("core/ stays framework-agnostic", () => {
  const files = sources(coreDir);

  it("imports no HTTP framework, database driver, ORM or network module", () => {
    const forbidden = /from\s+["'](h3|listhen|srvx|better-sqlite3|pg|postgres|drizzle-orm[^"']*|express|hono|fastify|node:(http|https|net|child_process|fs))["']/;
    const offenders = files.filter((file) => forbidden.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("never imports from adapters/ or server/", () => {
    const offenders = files.filter((file) => /from\s+["'](\.\.\/)+(adapters|server)\//.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("reads the wall clock only through the clock port", () => {
    const offenders = files.filter((file) => !file.endsWith(join("ports", "clock.ts")) && /Date\.now\(|new Date\(\)/.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("keeps no timers of its own (the host brings waits and backoff: setTimeout, setInterval, p-retry)", () => {
    const offenders = files.filter((file) => /\bset(Timeout|Interval|Immediate)\(|from\s+["']p-retry["']/.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });
});
