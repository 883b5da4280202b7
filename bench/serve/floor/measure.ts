/**
 * One floor measurement: a fresh copy of the captured starting database, replayed by replay.ts in
 * a child process; CPU microseconds per create.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../processes.js";
import { scriptPath } from "../scripts.js";
import type { Capture } from "./capture.js";

export interface FloorSample {
  cpuMicrosPerCreate: number;
  wallMicrosPerCreate: number;
}

export function measureFloor(dir: string, capture: Capture, batch: number): FloorSample {
  const copy = join(dir, `floor-replay-${batch}.db`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(copy + suffix, { force: true });
  copyFileSync(capture.startFile, copy);
  const output = execFileSync(process.execPath, [scriptPath("floor-replay"), join(dir, "floor-capture.json"), copy, String(batch)], {
    cwd: packageRoot,
    encoding: "utf8",
  });
  const result = JSON.parse(output.trim().split("\n").at(-1)!) as { cpuMicros: number; wallMs: number; captured: number };
  if (result.captured !== capture.creates) {
    console.warn(`floor: the capture holds ${result.captured} writer transactions for ${capture.creates} creates; figures are per create`);
  }
  for (const suffix of ["", "-wal", "-shm"]) rmSync(copy + suffix, { force: true });
  return { cpuMicrosPerCreate: result.cpuMicros / capture.creates, wallMicrosPerCreate: (result.wallMs * 1000) / capture.creates };
}
