/**
 * One load run against one process: autocannon for a duration, with the target's CPU time read
 * from /proc before and after, so each figure is the server's own CPU per answered request
 * (autocannon runs in the harness's process and is not counted).
 */
import autocannon from "autocannon";
import { cpuMicros } from "./cpu.js";

export interface LoadTarget {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
}

export interface LoadSample {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMicrosPerRequest: number;
  requests: number;
}

export async function load(pid: number, target: LoadTarget, seconds: number): Promise<LoadSample> {
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({
    url: target.url,
    method: target.method ?? "GET",
    headers: target.headers ?? {},
    ...(target.body === undefined ? {} : { body: target.body }),
    connections: target.connections,
    duration: seconds,
    timeout: 30,
  });
  const cpu = cpuMicros(pid) - cpuBefore;
  const answered = result["2xx"];
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${target.method ?? "GET"} ${target.url}: ${result.non2xx} answers were not 2xx and ${result.errors} requests failed (of ${answered + result.non2xx})`);
  }
  return {
    requestsPerSecond: answered / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest: answered > 0 ? cpu / answered : NaN,
    requests: answered,
  };
}
