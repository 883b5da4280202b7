/**
 * Fast seeding for the list and bulk scenarios: one record of each kind is created through the
 * API (so it has every column the current code writes, as it writes them), then copied with
 * better-sqlite3 straight into the file, `count` times, each copy with a fresh id of the same kind
 * (ULID-shaped, older than the template, so lists order them as if created earlier), matching
 * timestamps, and what must stay unique made unique. Runs beside the server: SQLite's locking
 * keeps them apart, and nothing the server caches depends on these rows.
 */
import Database from "better-sqlite3";
import { createIdGenerator } from "../../core/ports/ids.js";

type Row = Record<string, unknown>;

/** Rows per transaction: the WAL stays small (the connection checkpoints between them). */
const chunk = 20_000;

export interface SeedSpec {
  table: string;
  templateId: string;
  count: number;
  /** Columns to vary beyond id and timestamps, given the copy's index. */
  vary?: (row: Row, index: number) => Row;
}

export function seedCopies(database: string, spec: SeedSpec): void {
  const db = new Database(database);
  db.pragma("busy_timeout = 30000");
  try {
    const template = db.prepare(`SELECT * FROM ${spec.table} WHERE id = ?`).get(spec.templateId) as Row | undefined;
    if (!template) throw new Error(`seed: no ${spec.table} row ${spec.templateId}`);
    // Generated columns (hidden 2 and 3) are SQLite's to compute: an insert may not name them.
    const generated = new Set((db.prepare(`SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)`).pluck().all(spec.table) as string[]));
    for (const column of generated) delete template[column];
    const columns = Object.keys(template);
    const insert = db.prepare(`INSERT INTO ${spec.table} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`);
    const prefix = spec.templateId.slice(0, spec.templateId.indexOf("_"));
    // The copies' ids and timestamps end a second before the template's creation, one ms apart.
    const templateMs = Date.parse(String(template.created_at ?? new Date().toISOString()));
    let at = templateMs - 1000 - spec.count;
    const ids = createIdGenerator({ now: () => new Date(at) });
    const insertChunk = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        at += 1;
        const stamp = new Date(at).toISOString();
        const row: Row = { ...template, id: ids.next(prefix) };
        for (const column of ["created_at", "updated_at"]) if (column in row) row[column] = stamp;
        insert.run(spec.vary ? { ...row, ...spec.vary(row, i) } : row);
      }
    });
    for (let from = 0; from < spec.count; from += chunk) insertChunk(from, Math.min(spec.count, from + chunk));
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/**
 * Cases: numbers are unique per organization, so the copies take the numbers after the highest
 * one, and the organization's case counter moves past them (the next POST /cases continues from there).
 */
export function seedCases(database: string, templateId: string, count: number): void {
  const db = new Database(database, { readonly: true });
  const { number, organization } = db.prepare("SELECT (SELECT max(number) FROM cases AS others WHERE others.organization_id = cases.organization_id) AS number, organization_id AS organization FROM cases WHERE id = ?").get(templateId) as {
    number: number;
    organization: string;
  };
  db.close();
  seedCopies(database, { table: "cases", templateId, count, vary: (_row, i) => ({ number: number + 1 + i, title: `Seeded case ${i}` }) });
  const writer = new Database(database);
  writer.pragma("busy_timeout = 30000");
  writer.prepare("UPDATE organizations SET case_seq = (SELECT max(number) FROM cases WHERE organization_id = ?) WHERE id = ?").run(organization, organization);
  writer.close();
}

/** Alerts: a reference is unique per (organization, source, TLP) among live alerts. */
export function seedAlerts(database: string, templateId: string, count: number): void {
  seedCopies(database, { table: "alerts", templateId, count, vary: (row, i) => ({ source_ref: row.source_ref === null ? null : `${String(row.source_ref)}-${i}`, title: `Seeded alert ${i}` }) });
}

/** Tasks, spread over the organization's newest cases (up to 100), in order within each. */
export function seedTasks(database: string, templateId: string, count: number): void {
  const db = new Database(database, { readonly: true });
  const cases = db
    .prepare("SELECT cases.id FROM cases JOIN tasks ON tasks.organization_id = cases.organization_id WHERE tasks.id = ? ORDER BY cases.id DESC LIMIT 100")
    .pluck()
    .all(templateId) as string[];
  db.close();
  seedCopies(database, { table: "tasks", templateId, count, vary: (_row, i) => ({ case_id: cases[i % cases.length], sort_order: 1 + Math.floor(i / cases.length), title: `Seeded task ${i}` }) });
}
