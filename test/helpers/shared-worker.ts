/**
 * Setup file of the projects whose files share a worker (`isolate: false` in vitest.config.ts):
 * one file's modules, globals and open handles stay there for the next file. So each file must
 * leave the process as it found it, and this checks that it does: after the file's own afterAll
 * hooks, it fails the file if a global was replaced or removed, or a watched prototype, the
 * environment, the working directory or the process's listeners changed, or if a handle the file
 * opened (a server, a socket, a child process, a timer) is still open. A file that cannot help it (it installs a library that swaps
 * `globalThis.Response`, say) belongs in the `isolated` list of vitest.config.ts.
 */
import { afterAll, beforeAll, expect } from "vitest";

const watched: [string, object][] = [
  ["globalThis", globalThis],
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["Promise.prototype", Promise.prototype],
  ["String.prototype", String.prototype],
  ["Number.prototype", Number.prototype],
  ["RegExp.prototype", RegExp.prototype],
  ["Map.prototype", Map.prototype],
  ["Set.prototype", Set.prototype],
  ["Error", Error],
  ["JSON", JSON],
  ["Math", Math],
  ["Date", Date],
  ["console", console],
  ["process", process],
  ["Request.prototype", Request.prototype],
  ["Response.prototype", Response.prototype],
  ["Headers.prototype", Headers.prototype],
];

/** vitest's own per-file state on globalThis. */
const vitestOwn = new Set<PropertyKey>([Symbol.for("$$jest-matchers-object")]);

function snapshot(): Map<string, unknown> {
  const state = new Map<string, unknown>();
  for (const [name, target] of watched) {
    for (const key of Reflect.ownKeys(target)) {
      if (vitestOwn.has(key)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(target, key)!;
      let value: unknown = "value" in descriptor ? descriptor.value : descriptor.get;
      // Node defines some globals (Blob, FormData …) as getters that replace themselves on first
      // use: compare what they answer, not how they are defined.
      if (!("value" in descriptor)) {
        try {
          value = Reflect.get(target, key);
        } catch {
          // a poisoned accessor (Function.prototype.caller): compare the getter itself
        }
      }
      state.set(`${name}.${String(key)}`, value);
    }
  }
  for (const [name, value] of Object.entries(process.env)) state.set(`process.env.${name}`, value);
  state.set("process.cwd()", process.cwd());
  for (const event of ["exit", "beforeExit", "uncaughtException", "unhandledRejection", "warning", "SIGINT", "SIGTERM"]) {
    state.set(`process listeners of ${event}`, process.listenerCount(event));
  }
  return state;
}

const tally = (resources: string[]) => resources.reduce((counts, type) => counts.set(type, (counts.get(type) ?? 0) + 1), new Map<string, number>());

function leakedSince(before: Map<string, number>): string[] {
  return [...tally(process.getActiveResourcesInfo())]
    .filter(([type, count]) => count > (before.get(type) ?? 0))
    .map(([type, count]) => `${count - (before.get(type) ?? 0)} × ${type}`);
}

let globalsBefore: Map<string, unknown>;
let resourcesBefore: Map<string, number>;

beforeAll(() => {
  globalsBefore = snapshot();
  resourcesBefore = tally(process.getActiveResourcesInfo());
});

afterAll(async () => {
  const after = snapshot();
  // A global that appeared is a library's singleton, registered when the file first imported it
  // (zod's __zod_globalConfig): the next file would have registered the same. Anything else new,
  // changed or gone is the file's doing.
  const appeared = (key: string) => !globalsBefore.has(key) && key.startsWith("globalThis.");
  const changed = [...new Set([...globalsBefore.keys(), ...after.keys()])].filter((key) => !appeared(key) && !Object.is(globalsBefore.get(key), after.get(key)));
  // Closing is often a little asynchronous (a socket's last packet, a child's exit): give open
  // handles up to a second to go before calling them leaked.
  let leaked = leakedSince(resourcesBefore);
  for (let waited = 0; leaked.length > 0 && waited < 1_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    leaked = leakedSince(resourcesBefore);
  }
  const where = "this file shares its worker with others (isolate: false): undo it in an afterAll hook, or list the file in `isolated` in vitest.config.ts";
  expect({ changed, leaked }, `changed process-wide state or left handles open; ${where}`).toEqual({ changed: [], leaked: [] });
});
