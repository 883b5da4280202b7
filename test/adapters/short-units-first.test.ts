/**
 * Long units give way to short ones (adapters/shared/short-units-first.ts): a long unit's turn
 * waits while short work is in flight, for at most the short work's first `longestWaitMs`, and a
 * breather's turn in a long unit waits alike (adapters/shared/breather.ts).
 */
import { describe, expect, it } from "vitest";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { breather } from "../../adapters/shared/breather.js";
import { ShortUnitsFirst } from "../../adapters/shared/short-units-first.js";
import { settledWithin } from "../helpers/settled-within.js";

/** Short work that runs until `end()` is called. */
function heldWork(gate: ShortUnitsFirst): { done: Promise<string>; end: () => void; fail: () => void } {
  let end!: () => void;
  let fail!: () => void;
  const held = new Promise<string>((resolve, reject) => {
    end = () => resolve("short");
    fail = () => reject(new Error("short work failed"));
  });
  return { done: gate.short(() => held), end, fail };
}

describe("short units first", () => {
  it("offers nothing to wait for while no short work is in flight", async () => {
    const gate = new ShortUnitsFirst(60_000);
    expect(gate.turn()).toBeUndefined();
    await gate.short(async () => "done");
    expect(gate.turn()).toBeUndefined();
  });

  it("holds a long unit's turn until the short work in flight has ended, and lets the short work's caller go first", async () => {
    const gate = new ShortUnitsFirst(60_000);
    const first = heldWork(gate);
    const second = heldWork(gate);
    const order: string[] = [];
    const turn = gate.turn();
    expect(turn).toBeDefined();
    const turned = turn!.then(() => order.push("long"));
    first.end();
    await first.done;
    expect(await settledWithin(turned, 30)).toBe(false);
    second.end();
    await second.done.then(() => order.push("short caller"));
    await turned;
    expect(order).toEqual(["short caller", "long"]);
    expect(gate.turn()).toBeUndefined();
  });

  it("is released by short work that fails as by work that succeeds", async () => {
    const gate = new ShortUnitsFirst(60_000);
    const work = heldWork(gate);
    const turn = gate.turn()!;
    work.fail();
    await expect(work.done).rejects.toThrow("short work failed");
    expect(await settledWithin(turn, 1_000)).toBe(true);
  });

  it("counts short work only for its first longestWaitMs: a unit the long one blocks never stops it", async () => {
    const gate = new ShortUnitsFirst(40);
    const stuck = heldWork(gate);
    const turn = gate.turn()!;
    expect(turn).toBeDefined();
    // Released by its time, the short work still in flight, and no later turn waits for it, also
    // past the time the wait earned (below).
    expect(await settledWithin(turn, 5_000)).toBe(true);
    expect(gate.turn()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(gate.turn()).toBeUndefined();
    // New short work holds long units again.
    const fresh = heldWork(gate);
    const held = gate.turn();
    expect(held).toBeDefined();
    fresh.end();
    stuck.end();
    await Promise.all([fresh.done, stuck.done, held]);
  });

  it("after a wait that ran out with short work still coming, lets long units go as long again without waiting", async () => {
    const gate = new ShortUnitsFirst(40);
    const works = [heldWork(gate)];
    // Short work that never stops coming: a new one every 5 ms, none ending.
    const arriving = setInterval(() => works.push(heldWork(gate)), 5);
    try {
      const asked = performance.now();
      await gate.turn();
      const waited = performance.now() - asked;
      expect(waited).toBeGreaterThanOrEqual(40);
      // Earned: as long again without waiting, however much short work is in flight.
      expect(gate.turn()).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, waited / 2));
      expect(gate.turn()).toBeUndefined();
      // Past it, young short work holds long units back again.
      await new Promise((resolve) => setTimeout(resolve, waited + 5));
      const again = gate.turn();
      expect(again).toBeDefined();
      await again;
    } finally {
      clearInterval(arriving);
      for (const work of works) work.end();
      await Promise.all(works.map((work) => work.done));
    }
  });

  it("earns nothing from a wait that ended because the short work did", async () => {
    const gate = new ShortUnitsFirst(60_000);
    const work = heldWork(gate);
    const turn = gate.turn()!;
    work.end();
    await Promise.all([work.done, turn]);
    const next = heldWork(gate);
    expect(gate.turn()).toBeDefined();
    next.end();
    await next.done;
  });

  it("makes a turn asked while an earlier one waits go after it, so a long unit's statements keep their order", async () => {
    const gate = new ShortUnitsFirst(60_000);
    const work = heldWork(gate);
    const order: number[] = [];
    const turns = [gate.turn()!.then(() => order.push(1)), gate.turn()!.then(() => order.push(2))];
    work.end();
    await work.done;
    // Nothing holds long units back any more, but the first turn's release is still due (the next
    // turn of the event loop): turns asked now go after it, in the order asked.
    for (const n of [3, 4]) {
      const turn = gate.turn();
      expect(turn).toBeDefined();
      turns.push(turn!.then(() => order.push(n)));
    }
    await Promise.all(turns);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(gate.turn()).toBeUndefined();
  });
});

describe("the longest wait", () => {
  it("is refused unless it is a number of milliseconds, 0 or more, by the gate and by the PostgreSQL storage alike", () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const message = `casekit: invalid giveWayMs ${String(bad)}; use a number of milliseconds, 0 or more`;
      expect(() => new ShortUnitsFirst(bad), String(bad)).toThrow(message);
      expect(() => createPostgresStorage({ connectionString: "postgres://nobody@127.0.0.1:1/none", giveWayMs: bad }), String(bad)).toThrow(message);
    }
    expect(new ShortUnitsFirst(0).turn()).toBeUndefined();
  });
});

describe("a breather in a long unit", () => {
  it("waits at its turn for the unit's giveWay as well as for the event loop", async () => {
    const gate = new ShortUnitsFirst(60_000);
    const breathe = breather({ sliceMs: 0, giveWay: () => gate.turn() });
    const work = heldWork(gate);
    const pause = breathe();
    expect(pause).toBeDefined();
    expect(await settledWithin(pause!, 30)).toBe(false);
    work.end();
    await work.done;
    expect(await settledWithin(pause!, 1_000)).toBe(true);
  });

  it("offers no turn before its slice has passed, with or without giveWay", () => {
    const gate = new ShortUnitsFirst(60_000);
    void heldWork(gate);
    expect(breather({ sliceMs: 60_000, giveWay: () => gate.turn() })()).toBeUndefined();
    expect(breather({ sliceMs: 60_000 })()).toBeUndefined();
  });
});
