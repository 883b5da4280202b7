// A long unit of work on SQLite gives the event loop a turn once it has kept the main thread
// for the slice (2 ms): libuv takes in one new connection per turn, so the slice bounds how fast
// a server accepts connections while a bulk runs (yielding-unit.ts). The unit's executor is what
// yields, before a statement: every statement of every repository goes through it.
import { describe, expect, it } from "vitest";
import type { Executor } from "../../adapters/declare/dialect.js";
import { defaultSliceMs, yieldingExecutor } from "../../adapters/sqlite/yielding-unit.js";

const methods = ["all", "records", "run", "guarded"] as const;

/** An executor each of whose statements takes `callMs` of the manual clock `time`. */
function executorOfCalls(time: { now: number }, callMs: number, order: string[]): Executor {
  let calls = 0;
  const statement = async () => {
    time.now += callMs;
    order.push(`call ${++calls}`);
    return [] as never;
  };
  return { all: statement, records: statement, run: statement, guarded: statement };
}

describe("a long unit of work yields every slice", () => {
  it("the slice is 2 ms", () => {
    expect(defaultSliceMs).toBe(2);
  });

  it.each(methods)("once the unit has run the slice, its next statement (%s) waits for one event-loop turn (pending I/O and immediates run first)", async (method) => {
    const time = { now: 0 };
    const order: string[] = [];
    const executor = yieldingExecutor(executorOfCalls(time, 1, order), defaultSliceMs, () => time.now);
    setImmediate(() => order.push("turn"));
    for (let call = 0; call < 3; call++) await executor[method]("SELECT 1", []);
    // Calls 1 and 2 take 2 ms together: the third runs after a turn.
    expect(order).toEqual(["call 1", "call 2", "turn", "call 3"]);
  });

  it("the slice starts again after each turn, and a statement's failure reaches the caller either way", async () => {
    const time = { now: 0 };
    const order: string[] = [];
    const inner = executorOfCalls(time, 1, order);
    const failing: Executor = { ...inner, run: async () => Promise.reject(new Error("refused")) };
    const executor = yieldingExecutor(failing, defaultSliceMs, () => time.now);
    // A mark in every turn of the event loop, until the statements are done.
    let done = false;
    const markTurns = () => setImmediate(() => (done ? undefined : (order.push("turn"), markTurns())));
    markTurns();
    for (let call = 0; call < 6; call++) await executor.all("SELECT 1", []);
    done = true;
    // 6 statements of 1 ms: a turn after the 2nd and after the 4th (the slice restarts at each).
    expect(order).toEqual(["call 1", "call 2", "turn", "call 3", "call 4", "turn", "call 5", "call 6"]);
    await expect(executor.run("UPDATE x", [])).rejects.toThrow("refused");
    time.now += 5;
    await expect(executor.run("UPDATE x", [])).rejects.toThrow("refused");
  });

  it("a unit that never runs the slice takes no turn", async () => {
    const time = { now: 0 };
    const order: string[] = [];
    const executor = yieldingExecutor(executorOfCalls(time, 0.1, order), defaultSliceMs, () => time.now);
    setImmediate(() => order.push("turn"));
    for (let call = 0; call < 15; call++) await executor.run("UPDATE x", []);
    order.push("done");
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(order.slice(-2)).toEqual(["done", "turn"]);
  });
});
