/** The life of one unit of work (a transaction or a read), the same in both adapters. */
export interface UnitState {
  /** False once the unit has committed, rolled back or finished reading. */
  open: boolean;
  /** False inside `storage.read`. */
  writable: boolean;
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
