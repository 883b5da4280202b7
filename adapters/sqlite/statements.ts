import type Database from "better-sqlite3";
import { auditEntryColumns, caseColumns, tlpAuditEntryColumns } from "../shared/rows.js";

export type SqliteDatabase = Database.Database;
export type Statement = Database.Statement<unknown[], unknown>;

/** Dynamic statements (lists, one per filter shape) kept prepared at most. */
const maxDynamic = 256;

/**
 * Prepared statements, prepared on first use (the tables exist only after `migrate`) and kept for
 * the life of the connection. Fixed statements are keyed by their SQL constant below; dynamic
 * ones (lists) share a bounded cache, the oldest preparation dropped first.
 */
export class Statements {
  private readonly fixed = new Map<string, Statement>();
  private readonly dynamic = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  get(sql: string): Statement {
    let statement = this.fixed.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.fixed.set(sql, statement);
    }
    return statement;
  }

  /** A dynamic statement (a list with one filter shape), rows as objects. */
  getDynamic(sql: string): Statement {
    return this.cached(sql, false);
  }

  /** A dynamic statement whose rows are one JSON text each (see `sql.caseSelectJson`). */
  getJsonRows(sql: string): Statement {
    return this.cached(sql, true);
  }

  private cached(sql: string, pluck: boolean): Statement {
    const key = pluck ? `pluck:${sql}` : sql;
    let statement = this.dynamic.get(key);
    if (statement === undefined) {
      statement = pluck ? this.db.prepare(sql).pluck(true) : this.db.prepare(sql);
      if (this.dynamic.size >= maxDynamic) this.dynamic.delete(this.dynamic.keys().next().value!);
      this.dynamic.set(key, statement);
    }
    return statement;
  }
}

const list = (columns: readonly string[]) => columns.join(", ");
const insert = (table: string, columns: readonly string[]) =>
  `INSERT INTO ${table} (${list(columns)}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`;
const select = (table: string, columns: readonly string[]) => `SELECT ${list(columns)} FROM ${table}`;
/** `UPDATE … SET` every column but the key, for the row of `organization_id` and `id`. */
const replace = (table: string, columns: readonly string[]) =>
  `UPDATE ${table} SET ${columns
    .filter((c) => c !== "id" && c !== "organization_id")
    .map((c) => `${c} = @${c}`)
    .join(", ")} WHERE organization_id = @organization_id AND id = @id`;
/**
 * Each row as one JSON object text, JSON columns embedded as JSON. Handing a page of wide rows
 * to JavaScript as one string per row and parsing it once costs about half of what building
 * objects column by column does (22 columns × 50 rows); the shared mappers accept parsed JSON.
 */
const selectJson = (table: string, columns: readonly string[], jsonColumns: readonly string[]) =>
  `SELECT json_object(${columns.map((c) => `'${c}', ${jsonColumns.includes(c) ? `json(${c})` : c}`).join(", ")}) FROM ${table}`;

/**
 * The fixed SQL of the resources not declared yet (adapters/resources/ holds the others). Every
 * tenant table's query names `organization_id`; the TLP audit chain's head is kept on the
 * organization's own row, found by its id.
 */
export const sql = {
  begin: "BEGIN IMMEDIATE",
  commit: "COMMIT",
  rollback: "ROLLBACK",
  ping: "SELECT 1",

  caseInsert: insert("cases", caseColumns),
  caseById: `${select("cases", caseColumns)} WHERE organization_id = ? AND id = ?`,
  // One bound JSON array, so the statement is prepared once whatever the number of ids.
  casesByIds: `${select("cases", caseColumns)} WHERE organization_id = ? AND id IN (SELECT value FROM json_each(?))`,
  /** A case of another organization that lists the viewer among its `organizations`. */
  caseSharedWith: `${select("cases", caseColumns)} WHERE id = ? AND organization_id <> ? AND EXISTS (SELECT 1 FROM json_each(cases.organizations) AS shared WHERE shared.value = ?)`,
  caseUpdate: replace("cases", caseColumns),
  caseSelectJson: selectJson("cases", caseColumns, ["tags", "teams", "organizations", "custom_fields"]),

  auditInsert: insert("audit_log", auditEntryColumns),
  auditList: `${select("audit_log", auditEntryColumns)} WHERE organization_id = ? ORDER BY id DESC LIMIT ?`,
  auditListBefore: `${select("audit_log", auditEntryColumns)} WHERE organization_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,


  tlpAuditHead: "SELECT tlp_audit_seq AS seq, tlp_audit_hash AS hash FROM organizations WHERE id = ?",
  tlpAuditMoveHead: "UPDATE organizations SET tlp_audit_seq = ?, tlp_audit_hash = ? WHERE id = ?",
  tlpAuditInsert: insert("tlp_audit_log", tlpAuditEntryColumns),
  tlpAuditSelect: select("tlp_audit_log", tlpAuditEntryColumns),
  tlpAuditChain: `${select("tlp_audit_log", tlpAuditEntryColumns)} WHERE organization_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
} as const;
