/**
 * The load scenarios, run interleaved: a warm-up of each, then `rounds` rounds in which every
 * scenario runs once, so drift of the machine hits them alike. After each scenario the harness
 * waits for its server to go quiet: a create's WAL checkpoint and fsyncs go on after its load
 * stops, and in one full run the metered key, always next after the creates, measured +13.1 %
 * over the unmetered one (+4.8 % with metering run alone). Odd rounds also run the list forward
 * and even rounds backward, so no scenario always follows the same one. Each round also measures
 * the floor (per create and batched), so ratios are taken within a round and then summarized.
 *
 * Two scenarios compared with each other on one process (`pairedWith`: the metered and the
 * unmetered key) run by turns within the round instead, in short slices in the order ABBA ABBA…,
 * each summed over its slices: a difference of a few percent is then not lost in the drift of
 * the machine between two runs seconds apart (three runs of one after the other gave the metering
 * +7.8 %, ranging from −3.7 to +17.4 %, for a cost of about 0.5 µs of 38 measured in process).
 */
import type { Capture } from "./floor/capture.js";
import { measureFloor } from "./floor/measure.js";
import type { FloorSample } from "./floor/measure.js";
import type { LoadSample, LoadTarget } from "./load.js";
import { load } from "./load.js";
import { cpuMicros } from "./cpu.js";

/**
 * Waits until `pid` uses less than 2 % of a core over a quarter second (at most 10 s): the work a
 * scenario leaves behind is done before the next one is measured (a load scenario's, here; a
 * SQLite bulk's, whose WAL checkpoint copies tens of megabytes back, in serve.ts).
 */
export async function settle(pid: number): Promise<void> {
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
  /** The scenario (on the same process) this one is compared with: the two run by turns (see above). */
  pairedWith?: string;
}

/** Slices each of two paired scenarios runs per round. */
const pairedSlices = 4;

/** Two scenarios of one process by turns, ABBA…, `seconds` each in all; each one's slices summed. */
async function loadByTurns(a: LoadScenario, b: LoadScenario, seconds: number): Promise<[LoadSample, LoadSample]> {
  const pair = [a, b] as const;
  const slices: [LoadSample[], LoadSample[]] = [[], []];
  for (let slice = 0; slice < pairedSlices; slice++) {
    for (const which of slice % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) slices[which].push(await load(pair[which].pid, pair[which].target, seconds / pairedSlices));
  }
  return [summed(slices[0]), summed(slices[1])];
}

/** Slices as one sample: requests and CPU summed; the latencies are the slices' medians. */
function summed(samples: LoadSample[]): LoadSample {
  const requests = samples.reduce((sum, s) => sum + s.requests, 0);
  const seconds = samples.reduce((sum, s) => sum + s.requests / s.requestsPerSecond, 0);
  const cpu = samples.reduce((sum, s) => sum + s.cpuMicrosPerRequest * s.requests, 0);
  const middle = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  return { requests, requestsPerSecond: requests / seconds, cpuMicrosPerRequest: cpu / requests, p50Ms: middle(samples.map((s) => s.p50Ms)), p99Ms: middle(samples.map((s) => s.p99Ms)) };
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
    const done = new Set<string>();
    const record = (scenario: LoadScenario, sample: LoadSample) => {
      done.add(scenario.name);
      results.load.get(scenario.name)!.push(sample);
      options.log(`round ${round}  ${scenario.name.padEnd(48)} ${sample.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${sample.p50Ms} ms  p99 ${sample.p99Ms} ms  ${sample.cpuMicrosPerRequest.toFixed(0)} µs CPU/req`);
    };
    for (const scenario of round % 2 === 1 ? scenarios : [...scenarios].reverse()) {
      if (done.has(scenario.name)) continue;
      const partner = scenarios.find((other) => other.name === scenario.pairedWith || other.pairedWith === scenario.name);
      if (partner) {
        // The one met first this round takes the first slice (A of ABBA), so neither always does.
        const [first, second] = await loadByTurns(scenario, partner, options.seconds);
        record(scenario, first);
        record(partner, second);
      } else record(scenario, await load(scenario.pid, scenario.target, options.seconds));
      await settle(scenario.pid);
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
