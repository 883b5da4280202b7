// A long unit of work on SQLite gives the event loop a turn once it has kept the main thread
// for the slice (2 ms): libuv takes in one new connection per turn, so the slice bounds how fast
// a server accepts connections while a bulk runs (yielding-unit.ts).
import { describe, expect, it } from "vitest";
import type { UnitOfWork } from "../../core/index.js";
import { defaultSliceMs, yieldingUnit } from "../../adapters/sqlite/yielding-unit.js";

/** A unit whose one repository call takes `callMs` of the manual clock `time`. */
function unitOfCalls(time: { now: number }, callMs: number, order: string[]): UnitOfWork {
  let calls = 0;
  const repository = {
    async findById() {
      time.now += callMs;
      order.push(`call ${++calls}`);
    },
  };
  return { organizations: repository } as unknown as UnitOfWork;
}

describe("a long unit of work yields every slice", () => {
  it("the slice is 2 ms", () => {
    expect(defaultSliceMs).toBe(2);
  });

  it("once the unit has run the slice, its next call waits for one event-loop turn (pending I/O and immediates run first)", async () => {
    const time = { now: 0 };
    const order: string[] = [];
    const tx = yieldingUnit(unitOfCalls(time, 1, order), defaultSliceMs, () => time.now);
    setImmediate(() => order.push("turn"));
    for (let call = 0; call < 3; call++) await tx.organizations.findById("org");
    // Calls 1 and 2 take 2 ms together: the third runs after a turn.
    expect(order).toEqual(["call 1", "call 2", "turn", "call 3"]);
  });

  it("a unit that never runs the slice takes no turn", async () => {
    const time = { now: 0 };
    const order: string[] = [];
    const tx = yieldingUnit(unitOfCalls(time, 0.1, order), defaultSliceMs, () => time.now);
    setImmediate(() => order.push("turn"));
    for (let call = 0; call < 15; call++) await tx.organizations.findById("org");
    order.push("done");
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(order.slice(-2)).toEqual(["done", "turn"]);
  });
});
