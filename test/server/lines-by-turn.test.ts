// The host log hands the lines of one event-loop turn to its destination as one write
// (server/lines-by-turn.ts): in order, none lost, everything handed over before a flush completes.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
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

  it("flushSync hands over what is pending, then flushes the destination synchronously; a destination that throws loses only that turn", async () => {
    const writes: string[] = [];
    let synced = 0;
    let fail = false;
    const lines = linesByTurn({
      write: (text: string) => {
        if (fail) throw new Error("destroyed");
        writes.push(text);
      },
      flushSync: () => void (synced += 1),
    });
    lines.write("a\n");
    lines.flushSync();
    expect([writes, synced]).toEqual([["a\n"], 1]);
    fail = true;
    lines.write("lost\n");
    await turn(); // no uncaught error
    fail = false;
    lines.write("b\n");
    await turn();
    expect(writes).toEqual(["a\n", "b\n"]);
  });

  it("casekit serve's log keeps the lines written just before an uncaught error ends the process", () => {
    const hostLog = fileURLToPath(new URL("../../server/host-log.ts", import.meta.url));
    // The first line is flushed before the crash's turn: a line handed to sonic-boom in an earlier
    // turn may still be in its asynchronous write (a thread-pool write, slow on a loaded machine),
    // which nothing can wait for at exit; what the host owes is the lines still pending with it.
    const script = [
      `const { createHostLog } = await import(${JSON.stringify(hostLog)});`,
      `const log = createHostLog({ level: "info", logProbes: false });`,
      `log.logger.info({ n: 1 }, "before the crash");`,
      `await log.flush();`,
      `setTimeout(() => { log.logger.info({ n: 2 }, "in the crash's own turn"); throw new Error("boom"); }, 5);`,
    ].join("\n");
    const result = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(result.status).toBe(1);
    const messages = result.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(["before the crash", "in the crash's own turn"]);
  });
});
