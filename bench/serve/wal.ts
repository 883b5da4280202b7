/**
 * The WAL under sustained creates: `casekit serve` on a fresh file takes POST /cases from
 * `connections` connections for `seconds`, while the `-wal` file's size is sampled every second.
 * Reports the peak, and the size once the writes have stopped (two seconds later, the server still up).
 */
import { statSync } from "node:fs";
import autocannon from "autocannon";
import type { Organization } from "./processes.js";
import { startServe } from "./processes.js";
import { createBody } from "./requests.js";

export interface WalSample {
  peakBytes: number;
  finalBytes: number;
  creates: number;
  seconds: number;
}

const walSize = (database: string): number => {
  try {
    return statSync(`${database}-wal`).size;
  } catch {
    return 0;
  }
};

export async function sustainedCreates(database: string, organization: Organization, seconds: number, connections: number): Promise<WalSample> {
  const serve = await startServe("serve (WAL)", database);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, walSize(database))), 1000);
  try {
    const result = await autocannon({
      url: `${serve.origin}/api/v1/cases`,
      method: "POST",
      headers: { authorization: `Bearer ${organization.apiKey}`, "content-type": "application/json" },
      body: createBody,
      connections,
      duration: seconds,
      timeout: 30,
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`WAL: ${result.non2xx} answers were not 2xx and ${result.errors} failed`);
    peak = Math.max(peak, walSize(database));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { peakBytes: Math.max(peak, walSize(database)), finalBytes: walSize(database), creates: result["2xx"], seconds: result.duration };
  } finally {
    clearInterval(sampler);
    await serve.stop();
  }
}
