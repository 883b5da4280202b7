/**
 * The conformance suite's raw access (RawAccess, suite-context.ts) for SQLite: statements on a
 * better-sqlite3 connection to the storage's database (the storage's own, borrowed, for an
 * in-memory database; a second connection for a file). The audit logs' guards are triggers:
 * disabling drops them, remembering their definitions as sqlite_master holds them (that is, as
 * the migrations created them), and enabling creates them again from those definitions.
 */
import type Database from "better-sqlite3";
import type { RawAccess } from "./suite-context.js";

/** The append-only triggers of the two logs: tlp_audit_log's (migration 0001) and audit_log's (migration 0013). */
export const auditGuardTriggers = ["audit_log_no_delete", "audit_log_no_update", "tlp_audit_log_no_delete", "tlp_audit_log_no_update"] as const;

export function auditGuards(db: Database.Database): { name: string; sql: string }[] {
  return db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('audit_log', 'tlp_audit_log') ORDER BY name")
    .all() as { name: string; sql: string }[];
}

export function sqliteRawAccess(db: Database.Database): RawAccess {
  const saved = new Map<string, string>();
  return {
    async exec(sql, params = []) {
      if (db.inTransaction) throw new Error("raw access inside an open unit of work");
      db.prepare(sql).run(...params);
    },
    async disableAuditGuards() {
      const guards = auditGuards(db);
      db.transaction(() => {
        for (const { name, sql } of guards) {
          saved.set(name, sql);
          db.exec(`DROP TRIGGER "${name}"`);
        }
      })();
    },
    async enableAuditGuards() {
      const present = new Set(auditGuards(db).map((g) => g.name));
      db.transaction(() => {
        for (const [name, sql] of saved) if (!present.has(name)) db.exec(sql);
      })();
    },
  };
}
