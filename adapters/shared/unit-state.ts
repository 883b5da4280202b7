import type { UnitCarry } from "./unit-carry.js";

/** The life of one unit of work (a transaction or a read), the same in both adapters. */
export interface UnitState {
  /** False once the unit has committed, rolled back or finished reading. */
  open: boolean;
  /** False inside `storage.read`. */
  writable: boolean;
  /**
   * Writes kept until the unit's work is done, by key (a later registration under the same key
   * replaces nothing: the first one reads the latest state when it runs). `finishUnit` runs them.
   */
  deferred?: Map<string, () => Promise<void>>;
  /** What the units of one transaction hand on to each other, where several run in one (unit-carry.ts). */
  carry?: UnitCarry;
  /** Run once the unit's deferred writes are done, that is once it has succeeded (`onSuccess`). */
  succeeded?: Map<string, () => void>;
  /**
   * A long unit's way of giving short ones the thread (short-units-first.ts), where they share it
   * (PostgreSQL): asked before each statement and at each breather turn; undefined when there is
   * nothing to wait for. Absent in every other unit.
   */
  giveWay?: () => Promise<void> | undefined;
}

/**
 * The checks every repository call makes first: a tx used after its callback would run on a
 * connection no longer its own, and a write inside `read` would commit on its own.
 */
export function checkReading(unit: UnitState): void {
  if (!unit.open) throw new Error("casekit: this unit of work has ended; use its tx only inside the callback");
}

export function checkWriting(unit: UnitState): void {
  checkReading(unit);
  if (!unit.writable) throw new Error("casekit: storage.read() is read-only; write inside storage.transaction()");
}

/** The same checks bound to one unit, for a repository's methods. */
export function unitGuards(unit: UnitState): { reading: () => void; writing: () => void } {
  return { reading: () => checkReading(unit), writing: () => checkWriting(unit) };
}

/**
 * Keeps `write` until the unit's work has succeeded, once per `key`: a row written many times in
 * a unit (the organization's counters) is then written once, with its final value.
 */
export function deferToEnd(unit: UnitState, key: string, write: () => Promise<void>): void {
  checkWriting(unit);
  unit.deferred ??= new Map();
  if (!unit.deferred.has(key)) unit.deferred.set(key, write);
}

/**
 * Runs the unit's deferred writes, in the order they were first deferred. The adapter calls it
 * after the unit's work resolved and before it commits (a failure rolls the unit back like any
 * other); a unit whose work threw never runs them.
 */
export async function finishUnit(unit: UnitState): Promise<void> {
  const deferred = unit.deferred;
  unit.deferred = undefined;
  if (deferred) for (const write of deferred.values()) await write();
  const succeeded = unit.succeeded;
  unit.succeeded = undefined;
  if (succeeded) for (const hook of succeeded.values()) hook();
}

/**
 * Runs `hook` once the unit has succeeded (after its deferred writes, before its commit or
 * savepoint release), once per `key`; a unit whose work or deferred writes fail never runs it.
 */
export function onSuccess(unit: UnitState, key: string, hook: () => void): void {
  unit.succeeded ??= new Map();
  if (!unit.succeeded.has(key)) unit.succeeded.set(key, hook);
}
