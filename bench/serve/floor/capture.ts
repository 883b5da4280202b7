/**
 * Captures, for real, the statements `POST /api/v1/cases` runs: a `casekit serve` with the
 * statement recorder preloaded (record-sql.ts, dispatcher off so nothing else runs), warmed up
 * with creates, then backed up with `casekit backup` (the state the replay starts from), marked,
 * and sent `creates` more creates one at a time. What came after the mark is the replay's script.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { initOrganization, packageRoot, startServe } from "../processes.js";
import type { Recorded } from "./recorded.js";
import { createBody } from "../requests.js";

export interface Capture {
  /** The database as it was at the mark. */
  startFile: string;
  /** What came after the mark, one `Recorded` call each. */
  calls: Extract<Recorded, { kind: "call" }>[];
  /** Settings (`PRAGMA x = y`) each role's connections got before the mark. */
  setup: { writer: Extract<Recorded, { kind: "call" }>[]; reader: Extract<Recorded, { kind: "call" }>[] };
  creates: number;
}

const warmUp = 300;

export async function captureCreates(dir: string, creates: number): Promise<Capture> {
  const database = join(dir, "floor.db");
  const log = join(dir, "floor-statements.jsonl");
  const organization = initOrganization(database, "Floor SOC");
  const recorder = join(packageRoot, "bench", "serve", "floor", "record-sql.ts");
  const serve = await startServe("recording", database, { env: { CASEKIT_DISPATCHER: "off", BENCH_SQL_LOG: log }, nodeArgs: ["--import", "tsx", "--import", recorder] });
  const post = async (amount: number) => {
    const result = await autocannon({
      url: `${serve.origin}/api/v1/cases`,
      method: "POST",
      headers: { authorization: `Bearer ${organization.apiKey}`, "content-type": "application/json" },
      body: createBody,
      connections: 1,
      amount,
    });
    if (result["2xx"] !== amount) throw new Error(`floor capture: ${result["2xx"]} of ${amount} creates succeeded`);
  };
  try {
    await post(warmUp);
    const startFile = join(dir, "floor-start.db");
    const backup = spawnSync(process.execPath, [join(packageRoot, "bin", "casekit.mjs"), "backup", "--database", database, "--to", startFile], { encoding: "utf8" });
    if (backup.status !== 0) throw new Error(`casekit backup failed: ${backup.stderr}${backup.stdout}`);
    process.kill(serve.pid, "SIGUSR2");
    await waitForMarks(log, 1);
    await post(creates);
    process.kill(serve.pid, "SIGUSR2");
    await waitForMarks(log, 2);
    await serve.stop();
    const lines = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Recorded);
    const mark = lines.findIndex((line) => line.kind === "mark");
    const end = lines.findLastIndex((line) => line.kind === "mark");
    const before = lines.slice(0, mark).filter((line): line is Extract<Recorded, { kind: "call" }> => line.kind === "call" && isSetting(line.sql));
    const calls = lines.slice(mark + 1, end).filter((line): line is Extract<Recorded, { kind: "call" }> => line.kind === "call");
    const capture: Capture = {
      startFile,
      calls,
      setup: { writer: before.filter((c) => !c.readonly), reader: before.filter((c) => c.readonly) },
      creates,
    };
    writeFileSync(join(dir, "floor-capture.json"), JSON.stringify(capture));
    return capture;
  } finally {
    await serve.stop();
  }
}

async function waitForMarks(log: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!existsSync(log) || readFileSync(log, "utf8").split('{"kind":"mark"}').length - 1 < count) {
    if (Date.now() > deadline) throw new Error("the statement recorder wrote no mark");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A connection setting: `db.pragma("x = y")`, or a `PRAGMA x = y` statement. */
function isSetting(sql: string): boolean {
  return /^\s*(PRAGMA\s+)?[\w.]+\s*=/i.test(sql);
}
