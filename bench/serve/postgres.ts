/**
 * The selectAll bulk figure on PostgreSQL: a database of its own on the server BENCH_POSTGRES_URL
 * names (default: the tests' server), created for the run and dropped after it, and seeding that
 * copies template rows as seed.ts does for SQLite, in multi-row INSERTs.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createIdGenerator } from "../../core/ports/ids.js";

type Row = Record<string, unknown>;

export const postgresBaseUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export async function createBenchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `casekit_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: postgresBaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresBaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // BENCH_KEEP keeps what a run made, this database too: measured again or looked into by hand.
      if (process.env.BENCH_KEEP === "1") {
        const shown = new URL(url);
        if (shown.password) shown.password = "***";
        console.log(`kept ${shown.toString()}`);
        return;
      }
      const client = new pg.Client({ connectionString: postgresBaseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Copies of a template row (fresh ids of its kind, one ms apart before it; `vary` for the rest). */
export async function seedCopiesPostgres(url: string, table: string, templateId: string, count: number, vary: (row: Row, index: number) => Row = () => ({})): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<Row>(`SELECT * FROM ${table} WHERE id = $1`, [templateId]);
    const template = rows[0];
    if (!template) throw new Error(`seed: no ${table} row ${templateId}`);
    const columns = Object.keys(template);
    const perInsert = Math.floor(60_000 / columns.length);
    const prefix = templateId.slice(0, templateId.indexOf("_"));
    let at = new Date(template.created_at as string | Date).getTime() - 1000 - count;
    const ids = createIdGenerator({ now: () => new Date(at) });
    await client.query("BEGIN");
    for (let from = 0; from < count; from += perInsert) {
      const params: unknown[] = [];
      const tuples: string[] = [];
      for (let i = from; i < Math.min(count, from + perInsert); i++) {
        at += 1;
        const row: Row = { ...template, id: ids.next(prefix), created_at: new Date(at), updated_at: new Date(at) };
        Object.assign(row, vary(row, i));
        tuples.push(`(${columns.map((column) => `$${params.push(toParam(row[column]))}`).join(", ")})`);
      }
      await client.query(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES ${tuples.join(", ")}`, params);
    }
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}

/** node-postgres reads jsonb back parsed, and would write a JS array back as a PostgreSQL array. */
function toParam(value: unknown): unknown {
  if (value === null || typeof value !== "object" || value instanceof Date || Buffer.isBuffer(value)) return value;
  return JSON.stringify(value);
}

/** The newest case ids of the template task's organization, for spreading tasks over them. */
export async function newestCaseIds(url: string, limit: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM cases ORDER BY id DESC LIMIT ${limit}`);
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

/**
 * What the bulk scenario needs: 100 cases (the template and copies, numbered after it, the
 * organization's counter moved past them), `rows` alerts, and `rows` tasks spread over the cases.
 */
export async function seedBulkRows(url: string, templates: { caseId: string; alertId: string; taskId: string }, rows: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows: found } = await client.query<{ number: number }>("SELECT number FROM cases WHERE id = $1", [templates.caseId]);
  await client.end();
  const first = Number(found[0]!.number);
  await seedCopiesPostgres(url, "cases", templates.caseId, 99, (_row, i) => ({ number: first + 1 + i, title: `Seeded case ${i}` }));
  const update = new pg.Client({ connectionString: url });
  await update.connect();
  await update.query("UPDATE organizations SET case_seq = (SELECT max(number) FROM cases WHERE cases.organization_id = organizations.id)");
  await update.end();
  await seedCopiesPostgres(url, "alerts", templates.alertId, rows - 1, (row, i) => ({ source_ref: row.source_ref === null ? null : `${String(row.source_ref)}-${i}`, title: `Seeded alert ${i}` }));
  const cases = await newestCaseIds(url, 100);
  await seedCopiesPostgres(url, "tasks", templates.taskId, rows - 1, (_row, i) => ({ case_id: cases[i % cases.length], sort_order: 1 + Math.floor(i / cases.length), title: `Seeded task ${i}` }));
  // No statistics yet: the bulk rounds run vacuumAnalyze before each bulk, the first included.
}

/**
 * What autovacuum does on a live server, which the tests' server runs without: statistics for
 * the copied rows (a planner that believes the tables hold a handful of rows walks an
 * organization's whole index for each page's `id = ANY(…)` instead of probing the ids), and the
 * dead row versions of the last bulk reclaimed (100 000 of them per table after each: without a
 * vacuum every round updates a table and indexes that grew by the rounds before it).
 */
export async function vacuumAnalyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE)");
  } finally {
    await client.end();
  }
}
