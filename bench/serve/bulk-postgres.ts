/**
 * The selectAll bulk scenario on PostgreSQL: a database created for the run (postgres.ts),
 * `casekit serve` on it, one case, alert and task through the API, copies seeded, then the bulk
 * rounds; the server stopped and the database dropped whatever happens.
 */
import { api } from "./api.js";
import { bulkRounds } from "./bulk.js";
import type { BulkSample } from "./bulk.js";
import { seedBulkRows, vacuumAnalyze } from "./postgres.js";
import { servePostgres } from "./postgres-serve.js";
import { createBody } from "./requests.js";

export async function postgresBulk(dir: string, rows: number, rounds: number, probeMs: number, log: (line: string) => void): Promise<{ alerts: BulkSample[]; tasks: BulkSample[] }> {
  const { database, organization, serve } = await servePostgres(dir, "postgres");
  try {
    const key = organization.apiKey;
    const caseId = (await api<{ id: string }>(serve.origin, key, "POST", "/cases", JSON.parse(createBody))).id;
    const alertId = (await api<{ id: string }>(serve.origin, key, "POST", "/alerts", { title: "Seeded alert", severity: 2, source: "bench" })).id;
    const taskId = (await api<{ id: string }>(serve.origin, key, "POST", `/cases/${caseId}/tasks`, { title: "Seeded task" })).id;
    log(`seeding ${rows} alerts and ${rows} tasks in PostgreSQL…`);
    await seedBulkRows(database.url, { caseId, alertId, taskId }, rows);
    return await bulkRounds({ origin: serve.origin, key, userId: organization.userId, rows, probeMs }, rounds, "PostgreSQL", log, () => vacuumAnalyze(database.url));
  } finally {
    try {
      await serve.stop();
    } finally {
      await database.drop();
    }
  }
}
