/**
 * A small in-process load loop: each scenario is a `() => Promise<Response>`; rounds interleave
 * the scenarios (forwards, then backwards) so drift of the machine (thermal, GC, the other core)
 * hits them alike, and each figure is the median of the rounds. Figures are requests per second,
 * and this process's CPU time per request (`process.cpuUsage`: on a shared or virtual machine,
 * time the process waited for a core is not in it, so it moves far less between rounds than
 * the rate), and ratios against the baseline measured in the same run, never absolute claims.
 */
export interface Scenario {
  name: string;
  run: () => Response | Promise<Response>;
}

export interface Figure {
  name: string;
  perSecond: number;
  /** This process's CPU time (user + system) per request, in microseconds. */
  cpuMicros: number;
}

export async function measure(scenarios: Scenario[], options: { rounds?: number; requests?: number; concurrency?: number } = {}): Promise<Figure[]> {
  const rounds = options.rounds ?? 7;
  const requests = options.requests ?? 4_000;
  const concurrency = options.concurrency ?? 16;
  const samples = new Map<string, number[]>(scenarios.map((s) => [s.name, []]));
  const cpu = new Map<string, number[]>(scenarios.map((s) => [s.name, []]));

  for (const scenario of scenarios) await drive(scenario, Math.min(requests, 1_000), concurrency); // warm-up
  for (let round = 0; round < rounds; round++) {
    // Odd rounds run the scenarios backwards, so what comes first (after a collection, say) is not always the same one.
    for (const scenario of round % 2 === 0 ? scenarios : [...scenarios].reverse()) {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      await drive(scenario, requests, concurrency);
      const used = process.cpuUsage(cpuBefore);
      samples.get(scenario.name)!.push(requests / ((performance.now() - started) / 1000));
      cpu.get(scenario.name)!.push((used.user + used.system) / requests);
    }
  }
  return scenarios.map((s) => ({ name: s.name, perSecond: median(samples.get(s.name)!), cpuMicros: median(cpu.get(s.name)!) }));
}

async function drive(scenario: Scenario, requests: number, concurrency: number): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < requests) {
      sent += 1;
      const response = await scenario.run();
      if (!response.ok) throw new Error(`${scenario.name}: status ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function report(title: string, figures: Figure[], baseline: string): void {
  const base = figures.find((f) => f.name === baseline)!.perSecond;
  console.log(`\n${title}`);
  for (const f of figures) {
    console.log(`  ${f.name.padEnd(58)} ${f.perSecond.toFixed(0).padStart(8)} req/s   ${((f.perSecond / base) * 100).toFixed(1).padStart(6)} % of ${baseline}   ${f.cpuMicros.toFixed(1).padStart(7)} µs CPU/req`);
  }
}
