/**
 * Each unique key's conflict, derived: a record that takes another's values of the key (by insert,
 * or by an update where the key has columns an update writes) raises CaseKitError("conflict") with
 * the declared wording, applied to the clashing record when it is a function, and the unit stays
 * usable: its next statements work, and once the other record is gone the same write succeeds. A
 * partial key (`where`) clashes only where its condition admits both records, which the database
 * itself is asked (the condition is SQL); a key with a null value never clashes, as SQL has it.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { isCaseKitError } from "../../core/index.js";
import type { UniqueSpec } from "../../adapters/declare/resource.js";
import type { Row } from "./declared-records.js";
import { contentArbitrary, isDeleted, mayClash, recordWith, tenants } from "./declared-records.js";
import type { Checks } from "./declared-suite.js";

const idA = "key_01jaaaaaaaaaaaaaaaaaaaaaaa";
const idB = "key_01jbbbbbbbbbbbbbbbbbbbbbbb";

/** The declared wording of `key` for the record that clashed on it. */
const worded = (key: UniqueSpec<string>, record: Row): string => (typeof key.conflict === "string" ? key.conflict : key.conflict(record));

async function conflictOf(write: Promise<unknown>): Promise<string> {
  const error: unknown = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isCaseKitError(error) && error.code === "conflict", `expected a conflict, got ${String(error)}`).toBe(true);
  return (error as Error).message;
}

export function describeKeys(checks: Checks): void {
  const { resource } = checks;
  const keys = resource.spec.unique ?? [];
  const tenantOf = (record: Row) => (resource.tenant === undefined ? null : (record[resource.tenant.key] as string));
  const owner = resource.tenant === undefined ? fc.constant(null) : fc.constantFrom<string | null>(...tenants);

  /** Per key, whether its condition admits `record` (asked of the database: stored alone, in a savepoint). */
  async function admissions(record: Row): Promise<boolean[]> {
    const { dialect, executor, exec } = checks.connection();
    await exec("SAVEPOINT declared_probe");
    try {
      await checks.repo().insert(record);
      return await Promise.all(
        keys.map(async (key) => {
          if (key.where === undefined) return true;
          const found = await executor.all(`SELECT 1 AS admitted FROM ${resource.table} WHERE ${resource.id.name} = ${dialect.param(1)} AND (${key.where})`, [record[resource.id.key]]);
          return found.length > 0;
        }),
      );
    } finally {
      await exec("ROLLBACK TO SAVEPOINT declared_probe");
      await exec("RELEASE SAVEPOINT declared_probe");
    }
  }

  /** The first key (in declaration order) on which `b` clashes with the stored `a`, if any. */
  async function clashOf(a: Row, b: Row): Promise<UniqueSpec<string> | undefined> {
    const [inA, inB] = [await admissions(a), await admissions(b)];
    return keys.find((key, k) => inA[k] && inB[k] && key.columns.every((c) => a[c] !== null && a[c] === b[c]));
  }

  it("a second record with a taken id raises the id's conflict", async () => {
    await fc.assert(
      fc.asyncProperty(owner, contentArbitrary(resource), owner, contentArbitrary(resource), (t1, c1, t2, c2) =>
        checks.inRun(async () => {
          const first = recordWith(resource, idA, t1, c1);
          const second = recordWith(resource, idA, t2, c2);
          fc.pre(!mayClash(resource, { ...second, [resource.id.key]: idB }, [first]));
          await checks.repo().insert(first);
          expect(await conflictOf(checks.repo().insert(second))).toBe(`${resource.spec.noun} with this id already exists`);
          expect(await checks.repo().insertMany([second])).toBe(0);
          expect(await checks.rows()).toStrictEqual([first]);
        }),
      ),
      { numRuns: Math.max(3, Math.ceil(checks.runs / 2)) },
    );
  });

  for (const key of keys) {
    const described = `${key.name} (${key.columns.join(", ")}${key.where === undefined ? "" : ` where ${key.where}`})`;
    const mutable = key.columns.filter((c) => resource.mutable.some((f) => f.key === c));

    it(`unique key ${described}: an insert that clashes raises its conflict, worded, and the unit stays usable`, async () => {
      await fc.assert(
        fc.asyncProperty(owner, contentArbitrary(resource), owner, contentArbitrary(resource), (t1, c1, t2, c2) =>
          checks.inRun(async () => {
            const repo = checks.repo();
            const first = recordWith(resource, idA, t1, c1);
            const second = { ...recordWith(resource, idB, t2, c2), ...Object.fromEntries(key.columns.map((c) => [c, first[c]])) };
            const clash = await clashOf(first, second);
            await repo.insert(first);
            if (clash === undefined) {
              await repo.insert(second);
              expect(await checks.rows()).toStrictEqual([first, second]);
              return;
            }
            expect(await conflictOf(repo.insert(second))).toBe(worded(clash, second));
            expect(await repo.insertMany([second])).toBe(0);
            // The unit goes on: the next statements work, and with the first record gone the second is written.
            expect(await checks.rows()).toStrictEqual([first]);
            expect(await repo.delete(tenantOf(first), idA)).toBe(true);
            await repo.insert(second);
            expect(await checks.rows()).toStrictEqual([second]);
          }),
        ),
        { numRuns: checks.runs },
      );
    });

    if (mutable.length === 0) continue;
    it(`unique key ${described}: an update that clashes raises its conflict, worded, and the unit stays usable`, async () => {
      await fc.assert(
        fc.asyncProperty(owner, contentArbitrary(resource), contentArbitrary(resource), (t1, c1, c2) =>
          checks.inRun(async () => {
            const repo = checks.repo();
            const first = recordWith(resource, idA, t1, c1);
            // The second shares the key's fixed columns with the first; an update then copies the rest.
            const fixed = key.columns.filter((c) => !mutable.includes(c));
            const second = { ...recordWith(resource, idB, t1, c2), ...Object.fromEntries(fixed.map((c) => [c, first[c]])) };
            fc.pre((await clashOf(first, second)) === undefined);
            const claimed = { ...second, ...Object.fromEntries(mutable.map((c) => [c, first[c]])) };
            const clash = isDeleted(resource, second) ? undefined : await clashOf(first, claimed);
            await repo.insert(first);
            await repo.insert(second);
            if (clash === undefined) {
              expect(await repo.update(claimed)).toBe(!isDeleted(resource, second));
              return;
            }
            expect(await conflictOf(repo.update(claimed))).toBe(worded(clash, claimed));
            expect(await checks.rows()).toStrictEqual([first, second]);
            expect(await repo.delete(tenantOf(first), idA)).toBe(true);
            expect(await repo.update(claimed)).toBe(true);
            expect(await checks.rows()).toStrictEqual([claimed]);
          }),
        ),
        { numRuns: checks.runs },
      );
    });
  }
}
