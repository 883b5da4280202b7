import { describe, expect, it } from "vitest";
import { replayPlan } from "../../bench/serve/floor/plan.js";
import type { Step } from "../../bench/serve/floor/plan.js";
import { decodeParams, encodeParams } from "../../bench/serve/floor/recorded.js";
import type { Recorded } from "../../bench/serve/floor/recorded.js";
import { spread } from "../../bench/serve/stats.js";

type Call = Extract<Recorded, { kind: "call" }>;
const call = (sql: string, readonly = false): Call => ({ kind: "call", connection: readonly ? 1 : 0, readonly, method: "run", sql, params: "[]", mode: {} });

/** One create as a server with savepoints would run it: a read snapshot, then a write transaction. */
const create = (n: number, ending = "COMMIT"): Call[] => [
  call("BEGIN", true),
  call(`SELECT key ${n}`, true),
  call("COMMIT", true),
  call("BEGIN IMMEDIATE"),
  call("SAVEPOINT unit"),
  call(`INSERT case ${n}`),
  call("ROLLBACK TO unit"),
  call(`INSERT audit ${n}`),
  call("RELEASE unit"),
  call(ending),
];
const shape = (steps: Step[]) => steps.map((s) => (s.kind === "call" ? `${s.call.readonly ? "r" : "w"}:${s.call.sql}` : s.kind));

describe("the floor's replay plan", () => {
  it("replaces the writer's transaction control with one transaction per create, keeping reads as captured", () => {
    const plan = replayPlan([...create(1), ...create(2)], 1);
    expect(shape(plan.steps)).toEqual([
      "r:BEGIN", "r:SELECT key 1", "r:COMMIT", "begin", "w:INSERT case 1", "w:INSERT audit 1", "commit",
      "r:BEGIN", "r:SELECT key 2", "r:COMMIT", "begin", "w:INSERT case 2", "w:INSERT audit 2", "commit",
    ]);
    expect(plan).toMatchObject({ captured: 2, transactions: 2 });
  });

  it("batches captured transactions (ROLLBACK TO and RELEASE do not end one; END and ROLLBACK do), the rest in a last one", () => {
    const calls = [...create(1), ...create(2, "END"), ...create(3, "ROLLBACK"), ...create(4), ...create(5)];
    const plan = replayPlan(calls, 2);
    expect(plan).toMatchObject({ captured: 5, transactions: 3 });
    expect(shape(plan.steps).filter((s) => s === "begin" || s === "commit")).toEqual(["begin", "commit", "begin", "commit", "begin", "commit"]);
    expect(shape(plan.steps).filter((s) => s.startsWith("w:"))).toHaveLength(10);
  });
});

describe("recorded parameters", () => {
  it("come back as they were bound, bigints and Buffers included", () => {
    const args = [1, "text", null, 12345678901234567890n, Buffer.from([0, 1, 255]), { named: 2n, blob: Buffer.from("x") }];
    expect(decodeParams(encodeParams(args))).toEqual(args);
  });
});

describe("spread", () => {
  it("is the median with the lowest and highest value, the mean of the middle two for an even count", () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
  });
});
