import type { UnitOfWork } from "../../core/index.js";

/**
 * `tx` with some of its repositories replaced, for tests that inject a fault into one of them.
 * A unit's repositories are getters on its prototype (adapters/resources/unit-of-work.ts), which a
 * spread would not copy: the result derives from `tx`, so every other repository is `tx`'s own.
 */
export function unitWith(tx: UnitOfWork, replaced: Partial<UnitOfWork>): UnitOfWork {
  const members = Object.entries(replaced).map(([name, repository]) => [name, { value: repository, enumerable: true }]);
  return Object.create(tx, Object.fromEntries(members)) as UnitOfWork;
}
