/**
 * Group commit on random interleavings: random units of work (case numbers taken from two
 * organizations, organizations inserted, what the unit sees read back, a unique clash caught and
 * gone past, awaits of every kind) asked for after random delays, with random faults at random
 * points (a throw, a clash let through, an orphan row that makes the COMMIT fail, SQLite rolling
 * the transaction back under the unit, with the unit propagating or swallowing it) and random
 * caps on a group. The log of transaction statements (test/helpers/logged-sqlite.ts) says which
 * unit ran in which group; against it:
 *
 * - every unit runs once, in the order it was asked for, in a group no larger than the cap;
 * - a unit rejects exactly when it failed itself or its group was lost (a failed COMMIT, or a
 *   rollback by SQLite), and a lost group rejects all its units with the error that lost it;
 * - the committed state is the serial application of exactly the units that resolved, in order:
 *   case numbers 1, 2, 3 … handed to resolved units only, their organizations and no others;
 * - each unit that resolved saw exactly the writes of the resolved units before it and its own;
 * - no unit settles before its group's COMMIT (or ROLLBACK), and on a file another connection
 *   already sees a resolved unit's writes when it resolves.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { Organization, UnitOfWork } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import type { GroupLimits } from "../../adapters/sqlite/group-commit.js";
import { createFixtures } from "../conformance/fixtures.js";
import { loggedSqliteFactory, outsideRollback } from "../helpers/logged-sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-group-commit-property-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const openLogged = loggedSqliteFactory(dir);

type Step =
  | { kind: "next"; org: 0 | 1 }
  | { kind: "insert" }
  | { kind: "observe" }
  | { kind: "clash-caught" }
  | { kind: "await"; how: "microtask" | "immediate" | "timer" };

type FaultKind = "throw" | "clash" | "orphan" | "rollback" | "rollback-swallowed";

interface UnitSpec {
  /** Event-loop turns before the unit is asked for. */
  delay: number;
  steps: Step[];
  /** Injected before step `at` (or after the last one when `at` is past the end). */
  fault: { at: number; kind: FaultKind } | null;
}

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("next" as const), org: fc.constantFrom(0 as const, 1 as const) }) },
  { weight: 2, arbitrary: fc.constant({ kind: "insert" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "observe" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "clash-caught" as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("await" as const), how: fc.constantFrom("microtask" as const, "immediate" as const, "timer" as const) }) },
);
const faultKind: fc.Arbitrary<FaultKind> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("throw" as const, "clash" as const) },
  { weight: 1, arbitrary: fc.constantFrom("orphan" as const, "rollback" as const, "rollback-swallowed" as const) },
);
const unit: fc.Arbitrary<UnitSpec> = fc.record({
  delay: fc.integer({ min: 0, max: 3 }),
  steps: fc.array(step, { minLength: 1, maxLength: 6 }),
  fault: fc.option(fc.record({ at: fc.integer({ min: 0, max: 6 }), kind: faultKind }), { freq: 3 }),
});
const limits: fc.Arbitrary<GroupLimits> = fc.record({ maxUnits: fc.constantFrom(1, 2, 3, 64), maxMs: fc.constantFrom(2, 60_000) });
const scenario = fc.record({ units: fc.array(unit, { minLength: 1, maxLength: 10 }), limits });

class InjectedFault extends Error {}

interface Observed {
  /** Case numbers the unit took, per seeded organization, in order. */
  numbers: [number[], number[]];
  /** At each observe step: the ids, among every unit's organizations, the unit saw. */
  sights: { before: number; ids: string[] }[];
  /** On a file: whether another connection saw every organization of the unit when it resolved. */
  visibleOutside?: boolean;
}

type Outcome = { ok: true } | { ok: false; error: unknown };

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function check(where: "memory" | "file", specs: UnitSpec[], groupLimits: GroupLimits): Promise<void> {
  const h = await openLogged(where, { groupLimits });
  try {
    const f = createFixtures();
    const seeded = [f.organization(), f.organization()] as const;
    await h.storage.transaction(async (tx) => {
      for (const org of seeded) await tx.organizations.insert(org);
    });
    h.log.length = 0;
    // The organization each insert step writes, known before anything runs.
    const orgsOf = specs.map((spec) => spec.steps.map((s) => (s.kind === "insert" ? f.organization() : undefined)));
    const everyId = orgsOf.flatMap((orgs) => orgs.flatMap((org) => (org ? [org.id] : [])));
    const faults = specs.map((_, i) => new InjectedFault(`unit ${i}`));
    const asked: number[] = [];
    const observed: Observed[] = specs.map(() => ({ numbers: [[], []], sights: [] }));

    const inject = async (tx: UnitOfWork, i: number, kind: FaultKind): Promise<void> => {
      switch (kind) {
        case "throw":
          throw faults[i];
        case "clash":
          await tx.organizations.insert({ ...f.organization(), name: seeded[0].name });
          throw new Error("the clash did not clash");
        case "orphan":
          h.orphan();
          return;
        case "rollback":
          h.db.prepare(outsideRollback).run();
          throw faults[i];
        case "rollback-swallowed":
          h.db.prepare(outsideRollback).run();
          return;
      }
    };
    const run = async (tx: UnitOfWork, i: number, s: number): Promise<void> => {
      const current = specs[i]!.steps[s]!;
      switch (current.kind) {
        case "next":
          observed[i]!.numbers[current.org].push(await tx.organizations.nextCaseNumber(seeded[current.org].id));
          return;
        case "insert":
          await tx.organizations.insert(orgsOf[i]![s]!);
          return;
        case "observe":
          observed[i]!.sights.push({ before: s, ids: (await tx.organizations.existingIds(everyId)).sort() });
          return;
        case "clash-caught":
          try {
            await tx.organizations.insert({ ...f.organization(), name: seeded[1].name });
          } catch (error) {
            if (!isCaseKitError(error) || error.code !== "conflict") throw error;
          }
          return;
        case "await":
          if (current.how === "microtask") await Promise.resolve();
          else if (current.how === "immediate") await turn();
          else await new Promise((resolve) => setTimeout(resolve, 0));
          return;
      }
    };
    const visibleOutside = (i: number): boolean | undefined => {
      if (!h.outside) return undefined;
      const mine = orgsOf[i]!.filter((org): org is Organization => org !== undefined);
      const found = h.outside.prepare("SELECT count(*) AS n FROM organizations WHERE id IN (SELECT value FROM json_each(?))").get(JSON.stringify(mine.map((o) => o.id))) as { n: number };
      return found.n === mine.length;
    };

    const outcomes: Outcome[] = await Promise.all(
      specs.map(async (spec, i) => {
        for (let t = 0; t < spec.delay; t++) await turn();
        asked.push(i);
        return h.storage
          .transaction(async (tx) => {
            h.log.push(`start ${i}`);
            for (let s = 0; s <= spec.steps.length; s++) {
              if (spec.fault && Math.min(spec.fault.at, spec.steps.length) === s) await inject(tx, i, spec.fault.kind);
              if (s < spec.steps.length) await run(tx, i, s);
            }
          })
          .then(
            (): Outcome => {
              h.log.push(`settled ${i}`);
              observed[i]!.visibleOutside = visibleOutside(i);
              return { ok: true };
            },
            (error: unknown): Outcome => {
              h.log.push(`settled ${i}`);
              return { ok: false, error };
            },
          );
      }),
    );

    // Groups as the log shows them: which units each ran, and where each ended.
    const groups: { units: number[]; end: number }[] = [];
    h.log.forEach((entry, at) => {
      if (entry === "BEGIN IMMEDIATE") groups.push({ units: [], end: -1 });
      else if (entry.startsWith("start ")) groups[groups.length - 1]!.units.push(Number(entry.slice(6)));
      else if (entry === "COMMIT" || entry === "ROLLBACK" || entry === outsideRollback) groups[groups.length - 1]!.end = at;
    });
    expect(groups.flatMap((g) => g.units)).toEqual(asked);
    for (const g of groups) expect(g.units.length).toBeLessThanOrEqual(groupLimits.maxUnits);

    const ownFault = (i: number) => specs[i]!.fault?.kind;
    const resolved = new Set<number>();
    for (const g of groups) {
      const loser = g.units.find((i) => ownFault(i) === "rollback" || ownFault(i) === "rollback-swallowed");
      const orphaned = g.units.some((i) => ownFault(i) === "orphan");
      const loserError = loser === undefined ? undefined : (outcomes[loser] as { error?: unknown }).error;
      for (const i of g.units) {
        const outcome = outcomes[i]!;
        const fault = ownFault(i);
        // Settled after the group's last statement.
        expect(h.log.indexOf(`settled ${i}`)).toBeGreaterThan(g.end);
        // A group whose first unit fails ends there, rolled back.
        if ((fault === "throw" || fault === "clash") && g.units[0] === i) expect(g.units).toEqual([i]);
        if (fault === "throw" || fault === "rollback") {
          expect(outcome.ok).toBe(false);
          expect((outcome as { error: unknown }).error).toBe(faults[i]);
        } else if (fault === "clash") {
          expect(outcome.ok).toBe(false);
          expect((outcome as { error: unknown }).error).toMatchObject({ name: "CaseKitError", code: "conflict" });
        } else if (fault === "rollback-swallowed") {
          expect(outcome.ok).toBe(false);
        } else if (loser !== undefined) {
          expect(outcome.ok).toBe(false);
          expect((outcome as { error: unknown }).error).toBe(loserError);
        } else if (orphaned) {
          expect(outcome.ok).toBe(false);
          expect((outcome as { error: unknown }).error).toMatchObject({ code: "SQLITE_CONSTRAINT_FOREIGNKEY" });
        } else {
          expect(outcome).toEqual({ ok: true });
          resolved.add(i);
        }
      }
    }

    // The serial application of exactly the resolved units, in the order they were asked for.
    const counters = [0, 0];
    const visible = new Set<string>();
    for (const i of asked) {
      if (!resolved.has(i)) continue;
      const expectedNumbers: [number[], number[]] = [[], []];
      const sights: { before: number; ids: string[] }[] = [];
      specs[i]!.steps.forEach((s, at) => {
        if (s.kind === "next") expectedNumbers[s.org].push(++counters[s.org]!);
        if (s.kind === "observe") sights.push({ before: at, ids: [...visible].sort() });
        if (s.kind === "insert") visible.add(orgsOf[i]![at]!.id);
      });
      expect(observed[i]!.numbers).toEqual(expectedNumbers);
      expect(observed[i]!.sights).toEqual(sights);
      if (h.outside) expect(observed[i]!.visibleOutside).toBe(true);
    }
    expect((await h.storage.read((tx) => tx.organizations.existingIds(everyId))).sort()).toEqual([...visible].sort());
    const caseCounter = h.db.prepare("SELECT case_seq AS n FROM organizations WHERE id = ?").pluck();
    expect(seeded.map((org) => caseCounter.get(org.id))).toEqual(counters);
    expect(h.db.prepare("SELECT count(*) FROM probe_child").pluck().get()).toBe(0);
  } finally {
    await h.close();
  }
}

describe("SQLite group commit on random interleavings with injected failures", () => {
  it.each([
    ["memory", 80],
    ["file", 40],
  ] as const)("in %s: committed state is the serial application of exactly the resolved units", async (where, numRuns) => {
    await fc.assert(
      fc.asyncProperty(scenario, ({ units, limits: groupLimits }) => check(where, units, groupLimits)),
      { numRuns },
    );
  }, 120_000);
});
