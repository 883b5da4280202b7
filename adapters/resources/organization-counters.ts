/**
 * The organization row's counters (the case number and the heads of the TLP audit chain and of the
 * audit events' chain), read once per unit of work and written once at its end; where units run
 * one after another in one transaction (SQLite's group commit), read once per group and written
 * once before its COMMIT, each unit handing them on to the next (adapters/shared/unit-carry.ts).
 *
 * The first use in a writing unit reads the row and holds it (`FOR NO KEY UPDATE` on PostgreSQL;
 * SQLite's unit holds the whole database), so no other unit can move either counter until this
 * one ends: the unit may then hand out case numbers and extend the chain in memory, and one
 * UPDATE before commit (`flushUnit`, adapters/shared/unit-state.ts) stores both. A unit that
 * rolls back drops its copy with it. A create that used to read the head twice and update the row
 * twice now reads it once and writes it once.
 *
 * The same read brings the organization's definitions version (never written here: triggers move
 * it), so a unit that holds the row learns it for free and knows no other unit can commit a
 * definitions write before it ends. Asking for the version never takes the hold itself: a unit
 * that reads another organization's definitions (a shared case's) must not lock that row, and
 * the order in which a unit locks its rows stays what it was. After this unit writes a
 * definition (`definitionsWritten`) the held copy no longer says what the unit sees, so it is
 * read again on each ask.
 */
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { UnitState } from "../shared/unit-state.js";
import { checkWriting, deferToEnd, onSuccess } from "../shared/unit-state.js";

/** One organization's counters as this unit holds them. */
export interface HeldCounters {
  caseSeq: number;
  /** The TLP audit chain's head. */
  head: { seq: number; hash: string };
  /** As read with the counters; moved only by triggers, so never stored back. */
  definitionsVersion: number;
  /** The audit events chain's head (core/audit). */
  audit: { seq: number; hash: string };
  /** As read with the counters; moved only by triggers on webhooks (see `webhooksWritten`). */
  activeWebhooks: number;
}

const countersSqlFor = oncePerDialect((dialect: Dialect) => {
  const p = dialect.param;
  const read = `SELECT case_seq, tlp_audit_seq, tlp_audit_hash, audit_seq, audit_hash, definitions_version, active_webhooks FROM organizations WHERE id = ${p(1)}`;
  return {
    read,
    definitionsVersion: `SELECT definitions_version FROM organizations WHERE id = ${p(1)}`,
    held: `${read}${dialect.holdRow}`,
    store: `UPDATE organizations SET case_seq = ${p(1)}, tlp_audit_seq = ${p(2)}, tlp_audit_hash = ${p(3)}, audit_seq = ${p(4)}, audit_hash = ${p(5)} WHERE id = ${p(6)}`,
  };
});

/** Each writing unit's held rows, by organization id; gone with the unit. */
const heldByUnit = new WeakMap<UnitState, Map<string, HeldCounters>>();

/**
 * The definitions version each writing unit has read, by organization, where the unit holds the
 * whole database (SQLite's BEGIN IMMEDIATE: `holdRow` is empty): no other unit, of this process or
 * another, can move it before this one ends, so what it read stays true until it writes a
 * definition itself. A selectAll bulk asks on each of its
 * 400 pages; it now reads once.
 */
const versionReadByUnit = new WeakMap<UnitState, Map<string, number | null>>();

/** Per writing unit, the organizations it has done one thing to (gone with the unit). */
class NotedPerUnit {
  private readonly byUnit = new WeakMap<UnitState, Set<string>>();

  note(unit: UnitState, organizationId: string): void {
    let noted = this.byUnit.get(unit);
    if (!noted) this.byUnit.set(unit, (noted = new Set()));
    noted.add(organizationId);
  }

  has(unit: UnitState, organizationId: string): boolean {
    return this.byUnit.get(unit)?.has(organizationId) ?? false;
  }
}

/** The organizations whose definitions each writing unit has written. */
const definitionsWrittenByUnit = new NotedPerUnit();

/**
 * Records that `unit` wrote a lifecycle, custom field definition or case type of
 * `organizationId` (the definition repositories call it after each write): from then on the unit's
 * definitions version is read again on each ask, since the triggers have moved it.
 */
export function definitionsWritten(unit: UnitState, organizationId: string): void {
  definitionsWrittenByUnit.note(unit, organizationId);
  versionsMovedOnSuccess(unit, organizationId);
}

/**
 * One organization's counters as a group's units hand them on (unit-carry.ts): the last value a
 * unit that succeeded left, which the database row gets when the group settles. `current` is
 * false once a unit wrote the organization's definitions or webhooks: their triggers moved the
 * row's version columns, which the next unit then reads again (the counters still come from here).
 */
interface CarriedCounters {
  counters: HeldCounters;
  current: boolean;
}

const carryKey = (organizationId: string): string => `organization-counters:${organizationId}`;

const copyOf = (counters: HeldCounters): HeldCounters => ({
  caseSeq: counters.caseSeq,
  head: { ...counters.head },
  audit: { ...counters.audit },
  definitionsVersion: counters.definitionsVersion,
  activeWebhooks: counters.activeWebhooks,
});

/** The organizations whose counters each writing unit of a group has changed (handed on, written when the group settles). */
const changedByUnit = new NotedPerUnit();

/** Once `unit` succeeds, the organization's carried version columns are to be read again. */
function versionsMovedOnSuccess(unit: UnitState, organizationId: string): void {
  const carry = unit.carry;
  if (!carry) return;
  onSuccess(unit, `${carryKey(organizationId)}:moved`, () => {
    const carried = carry.get<CarriedCounters>(carryKey(organizationId));
    if (carried) carried.current = false;
  });
}

/** The organizations whose webhooks each writing unit has written. */
const webhooksWrittenByUnit = new NotedPerUnit();

/**
 * Records that `unit` wrote a webhook of `organizationId` (the webhook repository calls it on
 * each write): the triggers may have moved its active count, so the held copy no longer says
 * whether the unit's events have a subscription to reach.
 */
export function webhooksWritten(unit: UnitState, organizationId: string): void {
  webhooksWrittenByUnit.note(unit, organizationId);
  versionsMovedOnSuccess(unit, organizationId);
}

export function organizationCounters(dialect: Dialect, executor: Executor, unit: UnitState) {
  const sql = countersSqlFor(dialect);

  async function readRow(organizationId: string, hold: boolean): Promise<HeldCounters | undefined> {
    const [row] = await executor.all(hold ? sql.held : sql.read, [organizationId]);
    return row
      ? {
          caseSeq: Number(row.case_seq),
          head: { seq: Number(row.tlp_audit_seq), hash: String(row.tlp_audit_hash) },
          audit: { seq: Number(row.audit_seq), hash: String(row.audit_hash) },
          definitionsVersion: Number(row.definitions_version),
          activeWebhooks: Number(row.active_webhooks),
        }
      : undefined;
  }

  const store = (on: Executor, counters: HeldCounters, organizationId: string) =>
    on.run(sql.store, [counters.caseSeq, counters.head.seq, counters.head.hash, counters.audit.seq, counters.audit.hash, organizationId]);

  async function held(organizationId: string): Promise<HeldCounters | undefined> {
    let units = heldByUnit.get(unit);
    const known = units?.get(organizationId);
    if (known) return known;
    const carried = unit.carry?.get<CarriedCounters>(carryKey(organizationId));
    let read: HeldCounters | undefined;
    if (carried?.current) read = copyOf(carried.counters);
    else {
      read = await readRow(organizationId, true);
      // The row's counters are behind the group's: they are written when the group settles.
      if (read && carried) read = Object.assign(copyOf(carried.counters), { definitionsVersion: read.definitionsVersion, activeWebhooks: read.activeWebhooks });
    }
    if (!read) return undefined;
    if (!units) heldByUnit.set(unit, (units = new Map()));
    units.set(organizationId, read);
    handOn(organizationId);
    return read;
  }

  /** In a group, the unit's counters go on to the next unit once it succeeds, and a change is owed to the row. */
  function handOn(organizationId: string): void {
    const carry = unit.carry;
    if (!carry) return;
    onSuccess(unit, carryKey(organizationId), () => {
      const counters = heldByUnit.get(unit)?.get(organizationId);
      if (!counters) return;
      const moved = definitionsWrittenByUnit.has(unit, organizationId) || webhooksWrittenByUnit.has(unit, organizationId);
      carry.set(carryKey(organizationId), { counters: copyOf(counters), current: !moved } satisfies CarriedCounters);
      if (changedByUnit.has(unit, organizationId)) {
        carry.owe(carryKey(organizationId), async (on) => {
          await store(on, carry.get<CarriedCounters>(carryKey(organizationId))!.counters, organizationId);
        });
      }
    });
  }

  return {
    /** The committed counters, read without holding anything (a read-only unit). */
    committed: (organizationId: string) => readRow(organizationId, false),

    /**
     * The counters this writing unit holds, read and held on first use; undefined for an unknown
     * organization. The caller changes the object it gets and then calls `changed`.
     */
    held,

    /**
     * The organization's definitions version as this unit sees it now; null for an unknown
     * organization. From the held row when this unit holds it and has not written a definition
     * since (no statement); otherwise one primary-key lookup.
     */
    async definitionsVersion(organizationId: string): Promise<number | null> {
      const known = heldByUnit.get(unit)?.get(organizationId);
      const written = definitionsWrittenByUnit.has(unit, organizationId);
      if (known && !written) return known.definitionsVersion;
      const wholeDatabase = dialect.holdRow === "" && unit.writable && !written;
      const read = wholeDatabase ? versionReadByUnit.get(unit) : undefined;
      if (read?.has(organizationId)) return read.get(organizationId)!;
      const [row] = await executor.all(sql.definitionsVersion, [organizationId]);
      const version = row ? Number(row.definitions_version) : null;
      if (wholeDatabase) {
        if (read) read.set(organizationId, version);
        else versionReadByUnit.set(unit, new Map([[organizationId, version]]));
      }
      return version;
    },

    /**
     * Whether an event of `organizationId` written now certainly reaches no subscription: the
     * unit holds the organization's row (no webhook of it can change before the unit ends, on
     * either database), its copy says no webhook is active, and the unit has not written a
     * webhook of it since. Anything less certain says false, and the event waits for the
     * dispatcher as before. No statement of its own.
     */
    unsubscribed(organizationId: string): boolean {
      const known = heldByUnit.get(unit)?.get(organizationId);
      return known !== undefined && known.activeWebhooks === 0 && !webhooksWrittenByUnit.has(unit, organizationId);
    },

    /** Stores the held counters of `organizationId` once, when the unit ends (before commit). */
    changed(organizationId: string): void {
      if (unit.carry) {
        // In a group: handed on when the unit succeeds, and written once when the group settles.
        checkWriting(unit);
        changedByUnit.note(unit, organizationId);
        return;
      }
      deferToEnd(unit, carryKey(organizationId), async () => {
        const counters = heldByUnit.get(unit)?.get(organizationId);
        if (counters) await store(executor, counters, organizationId);
      });
    },
  };
}
