/**
 * The scenarios and the processes they run against. Groups (BENCH_ONLY=health,create,…) pick
 * what a run does; the bare h3 endpoint runs whenever any load group does.
 *
 * - health: authenticated GET /api/v1/health on `casekit serve` (fresh file)
 * - health-postgres: the same on `casekit serve` with a PostgreSQL database of its own, its
 *   rate-limit store the shared one in that database (casekit serve's default there)
 * - metering: the same request with a metered and an unmetered key on the metering host, and a
 *   bare node:http answer of its size with and without the three X-RateLimit headers (header-host.ts)
 * - create: POST /api/v1/cases on `casekit serve` (fresh file), and the floor beside it
 * - list: GET /api/v1/cases?limit=50 on `casekit serve` with BENCH_CASES cases, at 50 and 10 connections
 * - bulk: selectAll bulks of BENCH_BULK_ROWS alerts and tasks on that server, with a probe GET
 * - bulk-postgres: the same on `casekit serve` with a PostgreSQL database of its own (BENCH_POSTGRES_URL)
 * - webhooks: fan-out to a loopback receiver
 * - wal: sustained creates, the WAL sampled every second (BENCH_WAL_SECONDS)
 */
export const groups = ["health", "health-postgres", "metering", "create", "list", "bulk", "bulk-postgres", "webhooks", "wal"] as const;
export type Group = (typeof groups)[number];

export const names = {
  bare: "bare h3 JSON",
  health: "GET /health",
  healthPostgres: "GET /health (PostgreSQL)",
  metered: "GET /health, metered key (metering host)",
  unmetered: "GET /health, unmetered key (metering host)",
  headersAdded: "node:http answer, three X-RateLimit headers",
  headersAbsent: "node:http answer, without them",
  create: "POST /cases",
  list: "GET /cases?limit=50",
  list10: "GET /cases?limit=50, 10 connections",
} as const;

export function selectedGroups(only: string[]): Set<Group> {
  const unknown = only.filter((name) => !(groups as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown group(s) ${unknown.join(", ")}; known: ${groups.join(", ")}`);
  return new Set(only.length === 0 ? groups : (only as Group[]));
}
