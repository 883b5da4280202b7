// What the README tells embedders to import exists: every name a snippet of its embedding
// sections imports from `casekit…` is exported by that entry point (its source, as tsup builds it).
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { entryPoints, packageFile } from "../helpers/entry-points.js";

const readme = readFileSync(packageFile("README.md"), "utf8");

/** The text of a `## ` section (its `### ` subsections included). */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "${title}"`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

interface NamedImport {
  name: string;
  from: string;
  typeOnly: boolean;
}

/** `import { a, type B, c as d } from "casekit/x"` and `import type { … }` inside ```ts blocks. */
function importsOf(text: string): NamedImport[] {
  const found: NamedImport[] = [];
  for (const block of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
    for (const statement of block[1]!.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"(casekit(?:\/[\w-]+)?)"/g)) {
      for (const part of statement[2]!.split(",").map((p) => p.trim()).filter(Boolean)) {
        const typeOnly = statement[1] !== undefined || part.startsWith("type ");
        found.push({ name: part.replace(/^type\s+/, "").split(/\s+as\s+/)[0]!, from: statement[3]!, typeOnly });
      }
    }
  }
  return found;
}

/** Every name a source module exports, types included (the compiler's view, as the .d.ts will be). */
function declaredExports(source: string): Set<string> {
  const program = ts.createProgram([source], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(source)!;
  return new Set(checker.getExportsOfModule(checker.getSymbolAtLocation(file)!).map((symbol) => symbol.name));
}

const sections = ["Embedding the core", "Storage"];
const entries = new Map(entryPoints().map((entry) => [entry.specifier, entry]));

describe("README embedding sections", () => {
  const imports = sections.flatMap((title) => importsOf(section(title)));

  it("import from casekit entry points in their snippets (the sections are found and read)", () => {
    const from = new Set(imports.map((i) => i.from));
    for (const specifier of ["casekit", "casekit/sqlite", "casekit/h3", "casekit/express", "casekit/hono", "casekit/fastify", "casekit/conformance"]) {
      expect(from, specifier).toContain(specifier);
    }
  });

  it("import only names those entry points export", async () => {
    const missing: string[] = [];
    const typeNames = new Map<string, Set<string>>();
    for (const { name, from, typeOnly } of imports) {
      const entry = entries.get(from);
      if (!entry) {
        missing.push(`${from} is no entry point (package.json "exports")`);
        continue;
      }
      const source = packageFile(entry.source);
      if (typeOnly) {
        if (!typeNames.has(source)) typeNames.set(source, declaredExports(source));
        if (!typeNames.get(source)!.has(name)) missing.push(`type ${name} from ${from}`);
        continue;
      }
      const module = (await import(source)) as Record<string, unknown>;
      if (!(name in module)) missing.push(`${name} from ${from}`);
    }
    expect(missing).toEqual([]);
  });
});
