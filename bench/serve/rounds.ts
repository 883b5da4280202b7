/**
 * The load scenarios, run interleaved: a warm-up of each, then `rounds` rounds in which every
 * scenario runs once, so drift of the machine hits them alike. Odd rounds run the list forward and
 * even rounds backward: a scenario that leaves the machine busy (a create's WAL checkpoint and
 * fsyncs go on after its load stops) does not always land on the same next scenario, which in a
 * fixed order made the metered key, always run right after the creates, cost 15–19 % more than
 * the unmetered one in one run and 5 % in another. Each round also measures the floor (per create
 * and batched), so ratios are taken within a round and then summarized.
 */
import type { Capture } from "./floor/capture.js";
import { measureFloor } from "./floor/measure.js";
import type { FloorSample } from "./floor/measure.js";
import type { LoadSample, LoadTarget } from "./load.js";
import { load } from "./load.js";

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
