// The host log hands the lines of one event-loop turn to its destination as one write
// (server/lines-by-turn.ts): in order, none lost, everything handed over before a flush completes.
import { describe, expect, it } from "vitest";
import { linesByTurn } from "../../server/lines-by-turn.js";

function recorder() {
  const writes: string[] = [];
  const flushes: string[][] = [];
  return {
    writes,
    flushes,
    destination: {
      write: (text: string) => void writes.push(text),
      flush: (callback: (error?: Error | null) => void) => {
        flushes.push([...writes]);
        callback();
      },
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("lines by turn", () => {
  it("writes the lines of one turn once, in order, after the turn", async () => {
    const r = recorder();
    const lines = linesByTurn(r.destination);
    lines.write("a\n");
    lines.write("b\n");
    lines.write("c\n");
    expect(r.writes).toEqual([]);
    await turn();
    expect(r.writes).toEqual(["a\nb\nc\n"]);
    lines.write("d\n");
    await turn();
    lines.write("e\n");
    await turn();
    expect(r.writes).toEqual(["a\nb\nc\n", "d\n", "e\n"]);
  });

  it("hands over what is pending before the destination flushes", async () => {
    const r = recorder();
    const lines = linesByTurn(r.destination);
    lines.write("a\n");
    lines.write("b\n");
    await new Promise<void>((resolve) => lines.flush(() => resolve()));
    expect(r.flushes).toEqual([["a\nb\n"]]);
    await turn();
    expect(r.writes).toEqual(["a\nb\n"]); // the scheduled hand-over finds nothing left
  });

  it("flushes a destination without a flush of its own by calling back at once", async () => {
    const writes: string[] = [];
    const lines = linesByTurn({ write: (text: string) => void writes.push(text) });
    lines.write("x\n");
    await new Promise<void>((resolve) => lines.flush(() => resolve()));
    expect(writes).toEqual(["x\n"]);
  });
});
