/**
 * The load scenarios, run interleaved: a warm-up of each, then `rounds` rounds in which every
 * scenario runs once, so drift of the machine hits them alike. After each scenario the harness
 * waits for its server to go quiet: a create's WAL checkpoint and fsyncs go on after its load
 * stops, and in one full run the metered key, always next after the creates, measured +13.1 %
 * over the unmetered one (+4.8 % with metering run alone). Odd rounds also run the list forward
 * and even rounds backward, so no scenario always follows the same one. Each round also measures
 * the floor (per create and batched), so ratios are taken within a round and then summarized.
 */
import type { Capture } from "./floor/capture.js";
import { measureFloor } from "./floor/measure.js";
import type { FloorSample } from "./floor/measure.js";
import type { LoadSample, LoadTarget } from "./load.js";
import { load } from "./load.js";
import { cpuMicros } from "./cpu.js";

/**
 * Waits until `pid` uses less than 2 % of a core over a quarter second (at most 10 s): the work a
 * scenario leaves behind is done before the next one is measured.
 */
async function settle(pid: number): Promise<void> {
  const windowMs = 250;
  for (let waited = 0; waited < 10_000; waited += windowMs) {
    const before = cpuMicros(pid);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    if (cpuMicros(pid) - before < windowMs * 1000 * 0.02) return;
  }
}

export interface LoadScenario {
  name: string;
  pid: number;
  target: LoadTarget;
}

export interface RoundResults {
  load: Map<string, LoadSample[]>;
  floor: { perCreate: FloorSample[]; batched: FloorSample[] };
}

export async function runRounds(
  scenarios: LoadScenario[],
  floor: { dir: string; capture: Capture; batch: number } | undefined,
  options: { rounds: number; seconds: number; log: (line: string) => void },
): Promise<RoundResults> {
  const results: RoundResults = { load: new Map(scenarios.map((s) => [s.name, []])), floor: { perCreate: [], batched: [] } };
  for (const scenario of scenarios) await load(scenario.pid, scenario.target, Math.max(1, options.seconds / 5));
  for (let round = 1; round <= options.rounds; round++) {
    for (const scenario of round % 2 === 1 ? scenarios : [...scenarios].reverse()) {
      const sample = await load(scenario.pid, scenario.target, options.seconds);
      results.load.get(scenario.name)!.push(sample);
      await settle(scenario.pid);
      options.log(`round ${round}  ${scenario.name.padEnd(48)} ${sample.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${sample.p50Ms} ms  p99 ${sample.p99Ms} ms  ${sample.cpuMicrosPerRequest.toFixed(0)} µs CPU/req`);
    }
    if (floor) {
      const perCreate = measureFloor(floor.dir, floor.capture, 1);
      const batched = measureFloor(floor.dir, floor.capture, floor.batch);
      results.floor.perCreate.push(perCreate);
      results.floor.batched.push(batched);
      options.log(`round ${round}  floor: ${perCreate.cpuMicrosPerCreate.toFixed(0)} µs CPU per create, one commit each; ${batched.cpuMicrosPerCreate.toFixed(0)} µs batched by ${floor.batch}`);
    }
  }
  return results;
}
