/**
 * The floor: better-sqlite3 alone replaying the captured creates (capture.ts) on a copy of the
 * database as it was before them, in a process of its own:
 *
 *   node --import tsx bench/serve/floor/replay.ts <capture.json> <copy.db> <creates per transaction>
 *
 * The writer's own transaction control (BEGIN, COMMIT, savepoints) is left out and replaced: one
 * BEGIN IMMEDIATE … COMMIT around every `batch` captured transactions (1: one commit per create,
 * as a request does; 50: what group commit may reach). Everything else runs as captured, reads on
 * a read-only connection as the storage's readers do. Statements are prepared before the clock
 * starts (the server prepares once, too). Prints `{ cpuMicros, wallMs, transactions }` as JSON.
 */
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import type { Capture } from "./capture.js";
import { decodeParams } from "./recorded.js";
import type { Recorded } from "./recorded.js";

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

const control = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const ends = /^\s*(COMMIT|END|ROLLBACK)\s*(TRANSACTION)?\s*;?\s*$/i;
const script = capture.calls.map((call) => ({ call, params: decodeParams(call.params), control: !call.readonly && control.test(call.sql), ends: !call.readonly && ends.test(call.sql) }));
for (const { call } of script) {
  if (isPrepared(call) && !statements.has(key(call))) statements.set(key(call), (call.readonly ? reader : writer).prepare(call.sql));
}
const begin = writer.prepare("BEGIN IMMEDIATE");
const commit = writer.prepare("COMMIT");

const cpuBefore = process.cpuUsage();
const started = performance.now();
let open = false;
let captured = 0;
let transactions = 0;
for (const step of script) {
  if (step.control) {
    if (step.ends) {
      captured += 1;
      if (open && captured % batch === 0) {
        commit.run();
        open = false;
        transactions += 1;
      }
    }
    continue;
  }
  if (!step.call.readonly && !open) {
    begin.run();
    open = true;
  }
  run(step.call.readonly ? reader : writer, step.call, step.params);
}
if (open) {
  commit.run();
  transactions += 1;
}
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
writer.close();
reader.close();
console.log(JSON.stringify({ cpuMicros: cpu.user + cpu.system, wallMs, transactions, captured }));

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
