/**
 * The organization row's counters (the case number and the TLP audit chain's head), read once per
 * unit of work and written once at its end.
 *
 * The first use in a writing unit reads the row and holds it (`FOR NO KEY UPDATE` on PostgreSQL;
 * SQLite's unit holds the whole database), so no other unit can move either counter until this
 * one ends: the unit may then hand out case numbers and extend the chain in memory, and one
 * UPDATE before commit (`flushUnit`, adapters/shared/unit-state.ts) stores both. A unit that
 * rolls back drops its copy with it. A create that used to read the head twice and update the row
 * twice now reads it once and writes it once.
 */
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { UnitState } from "../shared/unit-state.js";
import { deferToEnd } from "../shared/unit-state.js";

/** One organization's counters as this unit holds them. */
export interface HeldCounters {
  caseSeq: number;
  head: { seq: number; hash: string };
}

const countersSqlFor = oncePerDialect((dialect: Dialect) => {
  const p = dialect.param;
  const read = `SELECT case_seq, tlp_audit_seq, tlp_audit_hash FROM organizations WHERE id = ${p(1)}`;
  return {
    read,
    held: `${read}${dialect.holdRow}`,
    store: `UPDATE organizations SET case_seq = ${p(1)}, tlp_audit_seq = ${p(2)}, tlp_audit_hash = ${p(3)} WHERE id = ${p(4)}`,
  };
});

/** Each writing unit's held rows, by organization id; gone with the unit. */
const heldByUnit = new WeakMap<UnitState, Map<string, HeldCounters>>();

export function organizationCounters(dialect: Dialect, executor: Executor, unit: UnitState) {
  const sql = countersSqlFor(dialect);

  async function readRow(organizationId: string, hold: boolean): Promise<HeldCounters | undefined> {
    const [row] = await executor.all(hold ? sql.held : sql.read, [organizationId]);
    return row ? { caseSeq: Number(row.case_seq), head: { seq: Number(row.tlp_audit_seq), hash: String(row.tlp_audit_hash) } } : undefined;
  }

  return {
    /** The committed counters, read without holding anything (a read-only unit). */
    committed: (organizationId: string) => readRow(organizationId, false),

    /**
     * The counters this writing unit holds, read and held on first use; undefined for an unknown
     * organization. The caller changes the object it gets and then calls `changed`.
     */
    async held(organizationId: string): Promise<HeldCounters | undefined> {
      let units = heldByUnit.get(unit);
      const known = units?.get(organizationId);
      if (known) return known;
      const read = await readRow(organizationId, true);
      if (!read) return undefined;
      if (!units) heldByUnit.set(unit, (units = new Map()));
      units.set(organizationId, read);
      return read;
    },

    /** Stores the held counters of `organizationId` once, when the unit ends (before commit). */
    changed(organizationId: string): void {
      deferToEnd(unit, `organization-counters:${organizationId}`, async () => {
        const counters = heldByUnit.get(unit)?.get(organizationId);
        if (counters) await executor.run(sql.store, [counters.caseSeq, counters.head.seq, counters.head.hash, organizationId]);
      });
    },
  };
}
