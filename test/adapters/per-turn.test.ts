// One fetch per event-loop turn (adapters/shared/per-turn.ts): the access version reads of both
// adapters share it, and their freshness rests on its one rule — the fetch starts after every
// get it answers was asked for.
import { describe, expect, it } from "vitest";
import { perTurn } from "../../adapters/shared/per-turn.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("perTurn", () => {
  it("answers the gets of one turn with one fetch of their keys, each key once, and the next turn with another", async () => {
    const fetched: string[][] = [];
    const reads = perTurn<string, number | null>((keys) => (fetched.push(keys), new Map(keys.filter((k) => k !== "none").map((k) => [k, k.length]))), null);
    expect(await Promise.all(["a", "bb", "a", "none", "ccc"].map((key) => reads.get(key)))).toEqual([1, 2, 1, null, 3]);
    expect(fetched).toEqual([["a", "bb", "none", "ccc"]]);
    expect(await reads.get("dddd")).toBe(4);
    expect(fetched).toHaveLength(2);
  });

  it("fetches after every get it answers was asked for: what changed between two gets of one turn reaches both", async () => {
    let value = 1;
    const reads = perTurn<string, number>(() => new Map([["k", value]]), 0);
    const first = reads.get("k");
    value = 2;
    const second = reads.get("k");
    expect(await Promise.all([first, second])).toEqual([2, 2]);
  });

  it("never answers a get with a fetch that started before it was asked: one asked during a fetch waits for the next", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let fetches = 0;
    const reads = perTurn<string, number>(async () => {
      const mine = ++fetches;
      if (mine === 1) await gate;
      return new Map([["k", mine]]);
    }, 0);
    const early = reads.get("k");
    await nextTurn(); // the first fetch has started and waits
    const late = reads.get("k");
    release();
    expect(await early).toBe(1);
    expect(await late).toBe(2);
  });

  it("rejects every get of a fetch that fails, and the next turn fetches again", async () => {
    let fail = true;
    const reads = perTurn<string, number>(() => {
      if (fail) throw new Error("unreachable");
      return new Map([["k", 7]]);
    }, 0);
    const results = await Promise.allSettled([reads.get("k"), reads.get("j")]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await reads.get("k")).toBe(7);
  });
});
