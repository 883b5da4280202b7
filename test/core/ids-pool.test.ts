import { afterEach, describe, expect, it, vi } from "vitest";
import { createIdGenerator, ManualClock, systemClock } from "../../core/index.js";

describe("ids from the pooled random bytes", () => {
  afterEach(() => vi.restoreAllMocks());

  it("ask the system for random bytes once per 8 KiB, not once per id", () => {
    const ids = createIdGenerator(systemClock);
    const draw = vi.spyOn(crypto, "getRandomValues");
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const stepping = createIdGenerator(clock);
    for (let i = 0; i < 2000; i++) {
      clock.advance(1); // a new millisecond every time: every id takes fresh random bytes
      stepping.next("case");
    }
    ids.next("req");
    // 2001 ids × 10 bytes = 20 010 bytes: three fills of 8 192 at most.
    expect(draw.mock.calls.length).toBeLessThanOrEqual(3);
    for (const [array] of draw.mock.calls) expect((array as Uint8Array).byteLength).toBe(8192);
  });

  it("stay unique and sorted across refills of the pool, one generator or several", () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const a = createIdGenerator(clock);
    const b = createIdGenerator(clock);
    const made: string[] = [];
    const fromA: string[] = [];
    for (let i = 0; i < 5000; i++) {
      if (i % 3 === 0) clock.advance(1);
      const id = a.next("evt");
      fromA.push(id);
      made.push(id, b.next("evt"));
    }
    expect(new Set(made).size).toBe(made.length);
    expect([...fromA].sort()).toEqual(fromA);
    for (const id of made) expect(id).toMatch(/^evt_[0-9a-z]{26}$/);
  });

  it("do not hand the same random bytes to two generators in one millisecond", () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const first = createIdGenerator(clock).next("case");
    const second = createIdGenerator(clock).next("case");
    expect(first.slice(0, 15)).toBe(second.slice(0, 15)); // prefix and time
    expect(first.slice(15)).not.toBe(second.slice(15));
  });
});
