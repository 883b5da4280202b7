/**
 * CPU time a process has used (user + system, all its threads), from /proc/<pid>/stat, in
 * microseconds. Fields 14 and 15 (utime, stime) count clock ticks; the command name (field 2) may
 * hold spaces, so fields are counted from after its closing parenthesis.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the name, field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / ticksPerSecond;
}
