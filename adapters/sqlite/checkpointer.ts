import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { SqliteDatabase } from "./statements.js";

/**
 * WAL checkpoints off the request path. By default SQLite checkpoints inside whichever commit
 * pushes the WAL past 1 000 pages, so one request in a few hundred pays for copying the whole WAL
 * into the database file (measured: list p99 21 ms with it, 5 ms without). Here a worker thread
 * with its own connection runs PASSIVE checkpoints (they never wait for, nor block, our readers
 * and writers) every `intervalMs`, and the main connection's automatic checkpoint is turned off.
 * If the worker cannot start or stops, the automatic checkpoint comes back, so the WAL never grows
 * without bound.
 *
 * PASSIVE copies pages back but never makes the WAL file smaller, and it cannot finish while
 * readers keep older snapshots: under sustained writes with readers always active the WAL grows
 * without end. So, once the WAL file passes `walLimitBytes`, the worker asks for a TRUNCATE
 * checkpoint (it waits for the readers of older snapshots, copies the rest back and empties the
 * file). It runs between two group commits, holding the writer (`holdWriter`): TRUNCATE blocks
 * writers, and a writer on the main thread would wait for it synchronously, stalling the event
 * loop, while the readers TRUNCATE waits for need that very loop to finish. Holding the writer, no
 * unit of ours writes meanwhile, and the loop stays free to serve reads. It waits only for the
 * units queued before it, and groups are capped (group-commit.ts), so units that never stop
 * coming cannot keep it out. If another process keeps
 * a reader open (a backup), the TRUNCATE gives up after a second and is tried again 5 s later.
 */
export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Runs `task` while no unit of work of this storage writes (between two group commits). */
  holdWriter<T>(task: () => Promise<T>): Promise<T>;
  /** The WAL file size that calls for a TRUNCATE checkpoint. */
  walLimitBytes: number;
  intervalMs?: number;
}

// A CommonJS script run with `eval`: no file of ours to locate after bundling.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const { statSync } = require("node:fs");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
const walFile = workerData.path + "-wal";
let asked = false;
let notBefore = 0;
const walSize = () => { try { return statSync(walFile).size; } catch { return 0; } };
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch { /* busy: the next tick tries again */ }
  if (!asked && Date.now() >= notBefore && walSize() > workerData.walLimitBytes) {
    asked = true;
    parentPort.postMessage("oversize");
  }
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message === "truncate") {
    let done = false;
    try { done = db.pragma("wal_checkpoint(TRUNCATE)")[0].busy === 0; } catch { /* busy */ }
    if (!done) notBefore = Date.now() + 5000;
    asked = false;
    parentPort.postMessage("truncated");
    return;
  }
  clearInterval(timer);
  try { db.pragma("wal_checkpoint(PASSIVE)"); } finally { db.close(); }
  parentPort.close();
});
`;

const defaultAutocheckpointPages = 1000;

export function startCheckpointer(db: SqliteDatabase, path: string, options: CheckpointerOptions): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const { walLimitBytes, intervalMs = 250 } = options;
  const worker = new Worker(workerSource, { eval: true, workerData: { driver, path, intervalMs, walLimitBytes } });
  worker.unref();
  db.pragma("wal_autocheckpoint = 0");
  let stopped = false;
  let truncated: (() => void) | undefined;
  const exited = new Promise<void>((resolve) => {
    worker.once("exit", () => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${defaultAutocheckpointPages}`);
      truncated?.();
      resolve();
    });
  });
  worker.once("error", () => {
    // "exit" follows and restores the automatic checkpoint.
  });
  worker.on("message", (message: string) => {
    if (message === "truncated") {
      truncated?.();
      return;
    }
    if (message !== "oversize" || stopped) return;
    void options.holdWriter(async () => {
      if (stopped) return;
      await new Promise<void>((resolve) => {
        truncated = resolve;
        worker.postMessage("truncate");
      });
      truncated = undefined;
    });
  });
  return {
    async stop() {
      if (stopped) return exited;
      stopped = true;
      // Unref'd so it never keeps a process alive; while stopping, the process must wait for it.
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}
