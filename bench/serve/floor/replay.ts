/**
 * The floor: better-sqlite3 alone replaying the captured creates (capture.ts) on a copy of the
 * database as it was before them, in a process of its own:
 *
 *   node <built floor-replay.mjs> <capture.json> <copy.db> <creates per transaction>   (scripts.ts builds it)
 *
 * The writer's own transaction control is replaced (plan.ts): one BEGIN IMMEDIATE … COMMIT around
 * every `batch` captured transactions (1: one commit per create, as a request does; 50: what group
 * commit may reach). Everything else runs as captured, reads on a read-only connection as the
 * storage's readers do. Statements are prepared before the clock
 * starts (the server prepares once, too). Prints `{ cpuMicros, wallMs, transactions }` as JSON.
 */
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import type { Capture } from "./capture.js";
import { decodeParams } from "./recorded.js";
import type { Recorded } from "./recorded.js";
import { replayPlan } from "./plan.js";

type Call = Extract<Recorded, { kind: "call" }>;
type Connection = Database.Database;

const [captureFile, file, batchArg] = process.argv.slice(2);
const capture = JSON.parse(readFileSync(captureFile!, "utf8")) as Capture;
const batch = Number(batchArg);

const statements = new Map<string, Database.Statement>();
const modes = new Map<Database.Statement, string>();
const key = (call: Call) => `${call.readonly ? "r" : "w"}:${call.sql}`;
const writer = new Database(file!);
for (const setting of capture.setup.writer) run(writer, setting);
const reader = new Database(file!, { readonly: true, fileMustExist: true });
for (const setting of capture.setup.reader) run(reader, setting);

const plan = replayPlan(capture.calls, batch);
const params = plan.steps.map((step) => (step.kind === "call" ? decodeParams(step.call.params) : []));
for (const step of plan.steps) {
  if (step.kind === "call" && isPrepared(step.call) && !statements.has(key(step.call))) statements.set(key(step.call), (step.call.readonly ? reader : writer).prepare(step.call.sql));
}
const begin = writer.prepare("BEGIN IMMEDIATE");
const commit = writer.prepare("COMMIT");

const cpuBefore = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < plan.steps.length; i++) {
  const step = plan.steps[i]!;
  if (step.kind === "begin") begin.run();
  else if (step.kind === "commit") commit.run();
  else run(step.call.readonly ? reader : writer, step.call, params[i]);
}
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
writer.close();
reader.close();
console.log(JSON.stringify({ cpuMicros: cpu.user + cpu.system, wallMs, transactions: plan.transactions, captured: plan.captured }));

function isPrepared(call: Call): boolean {
  return call.method !== "exec" && call.method !== "pragma";
}

function run(db: Connection, call: Call, params: unknown[] = decodeParams(call.params)): void {
  if (call.method === "exec") {
    db.exec(call.sql);
    return;
  }
  if (call.method === "pragma") {
    db.pragma(call.sql, { simple: call.mode.pluck === true });
    return;
  }
  const statement = statements.get(key(call)) ?? db.prepare(call.sql);
  if (statement.reader) setMode(statement, call.mode);
  if (call.method === "run") statement.run(...params);
  else if (call.method === "get") statement.get(...params);
  else if (call.method === "all") statement.all(...params);
  else for (const _row of statement.iterate(...params));
}

/** The statement's raw/pluck/expand as captured, set only when it differs from the last call's. */
function setMode(statement: Database.Statement, mode: Call["mode"]): void {
  const wanted = `${mode.raw === true}/${mode.pluck === true}/${mode.expand === true}`;
  if (modes.get(statement) === wanted) return;
  modes.set(statement, wanted);
  statement.raw(mode.raw === true);
  statement.pluck(mode.pluck === true);
  statement.expand(mode.expand === true);
}
