// The README's fenced code blocks and how each is run (test/package/readme-snippets.test.ts).
//
// A block written in a language (sh, bash, ts, js, json) is a snippet and must say how it is run,
// on the line right above its fence:
//
//   <!-- snippet: KIND [ARGUMENT] -->
//
// Blocks without a language, or marked `text`, are pictures (a folder layout, a log line) and are
// not run. The kinds are in `snippetKinds`; the test runs each one, so a README that gains a
// snippet nobody runs fails.
import { readFileSync } from "node:fs";

export const snippetKinds = {
  /** `npm ci && <commands>`: the set-up a newcomer runs; the test runs the commands after `npm ci` and keeps the server. */
  setup: "shell",
  /** `npm ci && npm test`: what CI runs (.ci/run), checked against that script. */
  tests: "shell",
  /** A shell command against the server `setup` started (`$CASEKIT_KEY` set; the origin is that server's). */
  shell: "shell",
  /** TypeScript against the server `setup` started (`process.env.CASEKIT_KEY` set). */
  client: "typescript",
  /** `npm i casekit …` lines: run in an empty folder (the consumer) with casekit as the packed package. */
  install: "shell",
  /**
   * A TypeScript module, run from an empty folder. ARGUMENT tokens: `name:N` names it,
   * `after:N` runs module N's code first in the same file (a snippet that goes on from another),
   * `in:consumer` runs it inside the folder the `install` snippet installed into.
   */
  module: "typescript",
  /** TypeScript written as a vitest file and run (ARGUMENT: a test name pattern to run a part). */
  vitest: "typescript",
  /** Lines that appear, in order and together, in ARGUMENT (a file the tests run). */
  excerpt: "any",
  /** A JSON document: it must parse. */
  json: "json",
} as const;

export type SnippetKind = keyof typeof snippetKinds;

export interface Snippet {
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  code: string;
  kind: SnippetKind;
  argument: string | undefined;
}

const languages: Record<string, (typeof snippetKinds)[SnippetKind]> = { sh: "shell", bash: "shell", ts: "typescript", js: "typescript", json: "json" };
const directivePattern = /^<!--\s*snippet:\s*([a-z]+)(?:\s+(.+?))?\s*-->$/;

/** Every snippet of a markdown text; throws naming the line of a block that says nothing or something wrong. */
export function readmeSnippets(markdown: string): Snippet[] {
  const lines = markdown.split("\n");
  const snippets: Snippet[] = [];
  const problems: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    // Fences may be indented (a block inside a list item); the block's lines lose that indent.
    const open = /^( *)(`{3,})(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const fence = open[2]!;
    const language = open[3]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== fence; i++) body.push(lines[i]!.startsWith(indent) ? lines[i]!.slice(indent.length) : lines[i]!.trimStart());
    if (i >= lines.length) throw new Error(`README line ${start + 1}: the code block is never closed`);
    if (language === "" || language === "text") continue;
    const family = languages[language];
    if (!family) {
      problems.push(`line ${start + 1}: code block in "${language}": use one of ${Object.keys(languages).join(", ")} or text`);
      continue;
    }
    const directive = directivePattern.exec((lines[start - 1] ?? "").trim());
    const kind = (directive?.[1] ?? (family === "json" ? "json" : undefined)) as SnippetKind | undefined;
    if (!kind) {
      problems.push(`line ${start + 1}: a ${language} block needs "<!-- snippet: KIND -->" on the line above (kinds: ${Object.keys(snippetKinds).join(", ")})`);
      continue;
    }
    if (!(kind in snippetKinds)) {
      problems.push(`line ${start + 1}: unknown snippet kind "${kind}"`);
      continue;
    }
    const expected = snippetKinds[kind];
    if (expected !== "any" && expected !== family) {
      problems.push(`line ${start + 1}: a ${kind} snippet is ${expected}, not ${language}`);
      continue;
    }
    snippets.push({ line: start + 1, language, code: body.join("\n"), kind, argument: directive?.[2] });
  }
  if (problems.length) throw new Error(`README snippets:\n${problems.join("\n")}`);
  return snippets;
}

export function readmeSnippetsOf(path: string): Snippet[] {
  return readmeSnippets(readFileSync(path, "utf8"));
}

/**
 * True when `snippet`'s lines appear in `file` in order and together. Indentation common to the
 * snippet is ignored (a README shows an indented excerpt flush left); trailing spaces too.
 */
export function isExcerptOf(snippet: string, file: string): boolean {
  const wanted = dedent(snippet.split("\n")).map((l) => l.trimEnd());
  const fileLines = file.split("\n").map((l) => l.trimEnd());
  for (let start = 0; start + wanted.length <= fileLines.length; start++) {
    const window = dedent(fileLines.slice(start, start + wanted.length));
    if (window.every((line, j) => line === wanted[j])) return true;
  }
  return false;
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)![0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(common));
}
