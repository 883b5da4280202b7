import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runBounded } from "../../core/webhooks/bounded-pool.js";

/** The pool the dispatcher sends through: bounds in all and per target, order per target, failures. */
const pause = (ticks: number) => new Promise<void>((resolve) => (ticks === 0 ? queueMicrotask(resolve) : setTimeout(resolve, ticks)));

describe("runBounded (the dispatcher's attempts in flight)", () => {
  it("runs every item once, never more than the overall and per-key bounds at once, each key's items in the order given", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom("a", "b", "c", "d"), ticks: fc.integer({ min: 0, max: 3 }) }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        async (specs, overall, perKey) => {
          const items = specs.map((spec, index) => ({ ...spec, index }));
          const running = new Map<string, number>();
          let inFlight = 0;
          let peak = 0;
          const peakOfKey = new Map<string, number>();
          const started: typeof items = [];
          await runBounded(items, { overall, perKey }, (item) => item.key, async (item) => {
            started.push(item);
            inFlight += 1;
            running.set(item.key, (running.get(item.key) ?? 0) + 1);
            peak = Math.max(peak, inFlight);
            peakOfKey.set(item.key, Math.max(peakOfKey.get(item.key) ?? 0, running.get(item.key)!));
            await pause(item.ticks);
            inFlight -= 1;
            running.set(item.key, running.get(item.key)! - 1);
          });
          expect(started.map((item) => item.index).sort((x, y) => x - y)).toEqual(items.map((item) => item.index));
          expect(peak).toBeLessThanOrEqual(overall);
          for (const value of peakOfKey.values()) expect(value).toBeLessThanOrEqual(perKey);
          for (const key of ["a", "b", "c", "d"]) {
            const order = started.filter((item) => item.key === key).map((item) => item.index);
            expect(order).toEqual([...order].sort((x, y) => x - y));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("uses every slot a busy key leaves free: a slow target does not hold back the others", async () => {
    const log: string[] = [];
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const items = ["slow-1", "slow-2", "fast-1", "fast-2", "fast-3"];
    const done = runBounded(items, { overall: 3, perKey: 1 }, (item) => item.split("-")[0]!, async (item) => {
      log.push(`start ${item}`);
      if (item.startsWith("slow")) await slow;
      log.push(`end ${item}`);
    });
    await pause(5);
    // The slow target holds one slot; the fast ones all went through the others meanwhile.
    expect(log).toEqual(["start slow-1", "start fast-1", "end fast-1", "start fast-2", "end fast-2", "start fast-3", "end fast-3"]);
    releaseSlow();
    await done;
    expect(log.slice(-3)).toEqual(["end slow-1", "start slow-2", "end slow-2"]);
  });

  it("starts nothing more after a failure, and rejects with it only once the running items finished", async () => {
    const log: string[] = [];
    const outcome = runBounded([1, 2, 3, 4, 5], { overall: 2, perKey: 2 }, () => "one", async (item) => {
      log.push(`start ${item}`);
      if (item === 1) throw new Error("item 1 failed");
      await pause(5);
      log.push(`end ${item}`);
    });
    await expect(outcome).rejects.toThrow("item 1 failed");
    expect(log).toEqual(["start 1", "start 2", "end 2"]);
  });
});
