/**
 * Group commit on the SQLite writer (adapters/sqlite/group-commit.ts), case by case, in memory and
 * on a WAL file: which units share a transaction, what a failing unit, a failing COMMIT and a
 * rollback by SQLite itself do to the group, the caps on a group, and where tasks run alone. The
 * log of transaction statements (test/helpers/logged-sqlite.ts) shows what ran in which group; the
 * property test beside this file checks the same rules on random interleavings.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Organization } from "../../core/index.js";
import { createFixtures, sleep } from "../conformance/fixtures.js";
import type { LoggedSqlite, LoggedSqliteOptions } from "../helpers/logged-sqlite.js";
import { loggedSqliteFactory, outsideRollback } from "../helpers/logged-sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "casekit-group-commit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const openLogged = loggedSqliteFactory(dir);

class InjectedFault extends Error {}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe.each(["memory", "file"] as const)("SQLite group commit (%s)", (where) => {
  const opened: LoggedSqlite[] = [];
  // Groups are cut at maxMs: the tests that expect one exact grouping must not depend on the
  // machine's speed (a first unit preparing its statements on a busy machine can take 10 ms).
  const open = async (options: LoggedSqliteOptions = { groupLimits: { maxMs: 60_000 } }) => {
    const logged = await openLogged(where, options);
    opened.push(logged);
    return logged;
  };
  afterEach(async () => {
    for (const logged of opened.splice(0)) await logged.close();
  });

  /** Whether the organization is committed, asked from outside the writer where there is an outside. */
  const committed = (h: LoggedSqlite, org: Organization): Promise<boolean> =>
    h.outside
      ? Promise.resolve(h.outside.prepare("SELECT count(*) AS n FROM organizations WHERE id = ?").get(org.id) as { n: number }).then((row) => row.n === 1)
      : h.storage.read(async (tx) => (await tx.organizations.findById(org.id)) !== null);

  it("units waiting at the same moment share one transaction, each in a savepoint, and settle after its COMMIT", async () => {
    const h = await open();
    const f = createFixtures();
    const orgs = range(4).map(() => f.organization());
    const seenOutside: boolean[] = [];
    const units = orgs.map((org, i) =>
      h.storage
        .transaction(async (tx) => {
          h.log.push(`start ${i}`);
          await tx.organizations.insert(org);
          await sleep(0);
          return i;
        })
        .then((value) => {
          h.log.push(`resolved ${i}`);
          // Settled only once committed: another connection sees the write already.
          if (h.outside) seenOutside.push((h.outside.prepare("SELECT count(*) AS n FROM organizations WHERE id = ?").get(org.id) as { n: number }).n === 1);
          return value;
        }),
    );
    expect(await Promise.all(units)).toEqual([0, 1, 2, 3]);
    expect(h.log).toEqual([
      "BEGIN IMMEDIATE",
      "start 0",
      "SAVEPOINT casekit_unit",
      "start 1",
      "RELEASE casekit_unit",
      "SAVEPOINT casekit_unit",
      "start 2",
      "RELEASE casekit_unit",
      "SAVEPOINT casekit_unit",
      "start 3",
      "RELEASE casekit_unit",
      "COMMIT",
      "resolved 0",
      "resolved 1",
      "resolved 2",
      "resolved 3",
    ]);
    if (h.outside) expect(seenOutside).toEqual([true, true, true, true]);
  });

  it("a unit that fails inside a group is undone alone: the units before it keep their writes, the ones after never see its own", async () => {
    const h = await open();
    const f = createFixtures();
    const [a, b, c] = [f.organization(), f.organization(), f.organization()];
    const fault = new InjectedFault("unit 1");
    let cSawB: boolean | undefined;
    const outcomes = await Promise.allSettled([
      h.storage.transaction((tx) => tx.organizations.insert(a)),
      h.storage.transaction(async (tx) => {
        await tx.organizations.insert(b);
        await sleep(1);
        throw fault;
      }),
      h.storage.transaction(async (tx) => {
        cSawB = (await tx.organizations.findById(b.id)) !== null;
        await tx.organizations.insert(c);
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(fault);
    expect(cSawB).toBe(false);
    expect([await committed(h, a), await committed(h, b), await committed(h, c)]).toEqual([true, false, true]);
    expect(h.log).toEqual([
      "BEGIN IMMEDIATE",
      "SAVEPOINT casekit_unit",
      "ROLLBACK TO casekit_unit",
      "RELEASE casekit_unit",
      "SAVEPOINT casekit_unit",
      "RELEASE casekit_unit",
      "COMMIT",
    ]);
  });

  it("when the first unit of a group fails, the group ends rolled back and the next group takes the rest", async () => {
    const h = await open();
    const f = createFixtures();
    const [a, b] = [f.organization(), f.organization()];
    const fault = new InjectedFault("first");
    const outcomes = await Promise.allSettled([
      h.storage.transaction(async (tx) => {
        await tx.organizations.insert(a);
        throw fault;
      }),
      h.storage.transaction((tx) => tx.organizations.insert(b)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "fulfilled"]);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe(fault);
    expect([await committed(h, a), await committed(h, b)]).toEqual([false, true]);
    expect(h.log).toEqual(["BEGIN IMMEDIATE", "ROLLBACK", "BEGIN IMMEDIATE", "COMMIT"]);
  });

  it("a COMMIT that fails rejects every unit of the group, none answered before, and keeps nothing of it", async () => {
    const h = await open();
    const f = createFixtures();
    const orgs = range(3).map(() => f.organization());
    const outcomes = await Promise.allSettled(
      orgs.map((org, i) =>
        h.storage.transaction(async (tx) => {
          await tx.organizations.insert(org);
          if (i === 1) h.orphan(); // checked at COMMIT only
          return i;
        }),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: "SQLITE_CONSTRAINT_FOREIGNKEY" });
    }
    for (const org of orgs) expect(await committed(h, org)).toBe(false);
    expect(h.log.slice(-2)).toEqual(["COMMIT", "ROLLBACK"]);
    expect(h.db.inTransaction).toBe(false);
    // The storage goes on: the next unit commits.
    const next = f.organization();
    await h.storage.transaction((tx) => tx.organizations.insert(next));
    expect(await committed(h, next)).toBe(true);
  });

  it("when SQLite rolls the transaction back under a unit (SQLITE_FULL…), every unit of the group rejects; the units queued after it run in the next group", async () => {
    const h = await open();
    const f = createFixtures();
    const [a, b, c] = [f.organization(), f.organization(), f.organization()];
    const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    const outcomes = await Promise.allSettled([
      h.storage.transaction((tx) => tx.organizations.insert(a)),
      h.storage.transaction(async (tx) => {
        await tx.organizations.insert(b);
        h.db.prepare(outsideRollback).run(); // what SQLite does on SQLITE_FULL, at worst
        throw full;
      }),
      h.storage.transaction((tx) => tx.organizations.insert(c)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe(full);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(full);
    expect([await committed(h, a), await committed(h, b), await committed(h, c)]).toEqual([false, false, true]);
    expect(h.log).toEqual(["BEGIN IMMEDIATE", "SAVEPOINT casekit_unit", outsideRollback, "BEGIN IMMEDIATE", "COMMIT"]);
  });

  it("a unit that swallows such a rollback and goes on writing is refused: nothing is written outside a transaction", async () => {
    const h = await open();
    const f = createFixtures();
    const [a, b, c, d] = [f.organization(), f.organization(), f.organization(), f.organization()];
    let refused: unknown;
    const outcomes = await Promise.allSettled([
      h.storage.transaction((tx) => tx.organizations.insert(a)),
      h.storage.transaction(async (tx) => {
        await tx.organizations.insert(b);
        h.db.prepare(outsideRollback).run();
        try {
          await tx.organizations.insert(c);
        } catch (error) {
          refused = error;
        }
        return "went on";
      }),
      h.storage.transaction(async (tx) => {
        // The same with nothing written after: the unit returns as if all went well.
        await tx.organizations.insert(d);
      }),
    ]);
    expect(String(refused)).toMatch(/rolled back; nothing more can be written/);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/SQLite rolled the transaction back during this unit of work/);
    expect([await committed(h, a), await committed(h, b), await committed(h, c), await committed(h, d)]).toEqual([false, false, false, true]);

    const e = f.organization();
    const swallowed = h.storage.transaction(async (tx) => {
      await tx.organizations.insert(e);
      h.db.prepare(outsideRollback).run();
    });
    await expect(swallowed).rejects.toThrow(/SQLite rolled the transaction back during this unit of work/);
    expect(await committed(h, e)).toBe(false);
  });

  it("an organization's counters go from unit to unit of a group: read by the first unit that holds them, written once before the COMMIT; a unit that fails hands nothing on", async () => {
    const h = await open();
    const f = createFixtures();
    const org = f.organization();
    await h.storage.transaction((tx) => tx.organizations.insert(org));
    h.log.length = 0;
    const fault = new InjectedFault("unit 2");
    const take = () => h.storage.transaction((tx) => tx.organizations.nextCaseNumber(org.id));
    const outcomes = await Promise.allSettled([
      take(),
      take(),
      h.storage.transaction(async (tx) => {
        await tx.organizations.nextCaseNumber(org.id);
        throw fault;
      }),
      take(),
    ]);
    // The failed unit's number is handed out again: it never happened.
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : "rejected"))).toEqual([1, 2, "rejected", 3]);
    expect(h.log).toEqual([
      "BEGIN IMMEDIATE",
      "read counters",
      "SAVEPOINT casekit_unit",
      "RELEASE casekit_unit",
      "SAVEPOINT casekit_unit",
      "ROLLBACK TO casekit_unit",
      "RELEASE casekit_unit",
      "SAVEPOINT casekit_unit",
      "RELEASE casekit_unit",
      "write counters",
      "COMMIT",
    ]);
    // The row holds the group's last value: the next group goes on from it.
    h.log.length = 0;
    expect(await take()).toBe(4);
    expect(h.log).toEqual(["BEGIN IMMEDIATE", "read counters", "write counters", "COMMIT"]);
  });

  it("a group whose last units fail writes the counters the last unit that succeeded left; one whose units all fail writes none", async () => {
    const h = await open();
    const f = createFixtures();
    const org = f.organization();
    await h.storage.transaction((tx) => tx.organizations.insert(org));
    const failing = (i: number) =>
      h.storage.transaction(async (tx) => {
        await tx.organizations.nextCaseNumber(org.id);
        throw new InjectedFault(`unit ${i}`);
      });
    h.log.length = 0;
    const [first, ...rest] = await Promise.allSettled([h.storage.transaction((tx) => tx.organizations.nextCaseNumber(org.id)), failing(1), failing(2)]);
    expect(first).toEqual({ status: "fulfilled", value: 1 });
    expect(rest.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(h.log.filter((entry) => entry.endsWith("counters"))).toEqual(["read counters", "write counters"]);
    h.log.length = 0;
    await Promise.allSettled([failing(3), failing(4)]);
    expect(h.log.filter((entry) => entry.endsWith("counters"))).toEqual(["read counters", "read counters"]);
    expect(await h.storage.transaction((tx) => tx.organizations.nextCaseNumber(org.id))).toBe(2);
  });

  it("a unit that writes a webhook or a definition of the organization makes the next units of the group read its version columns again; the counters still go on", async () => {
    const h = await open();
    const f = createFixtures();
    const org = f.organization();
    await h.storage.transaction((tx) => tx.organizations.insert(org));
    const field = { id: "cfd_01kaaaaaaaaaaaaaaaaaaaaaaa", organizationId: org.id, key: "impact", label: "Impact", description: null, scopes: ["case" as const], type: "text" as const, options: [], bounds: {}, required: { onCreate: false, onClose: false }, defaultValue: null, tlpFloor: null, filterable: false, archivedAt: null, createdAt: f.at(), updatedAt: f.at(), createdBy: null };
    const event = f.event(org.id);
    h.log.length = 0;
    const [first, , second, , third] = await Promise.all([
      h.storage.transaction((tx) => tx.organizations.nextCaseNumber(org.id)),
      h.storage.transaction((tx) => tx.webhooks.insert(f.webhook(org.id))),
      h.storage.transaction(async (tx) => {
        const number = await tx.organizations.nextCaseNumber(org.id);
        // Held from the carry: its active webhook count must be the row's, 1 now, so the event waits for the dispatcher.
        await tx.audit.append(f.auditEntry(org.id));
        await tx.events.append(event);
        return number;
      }),
      h.storage.transaction((tx) => tx.customFields.insert(field)),
      h.storage.transaction(async (tx) => ({ number: await tx.organizations.nextCaseNumber(org.id), version: await tx.organizations.definitionsVersion(org.id) })),
    ]);
    expect(h.log.filter((entry) => entry === "BEGIN IMMEDIATE")).toHaveLength(1);
    expect([first, second, third.number]).toEqual([1, 2, 3]);
    expect(third.version).toBe(await h.storage.read((tx) => tx.organizations.definitionsVersion(org.id)));
    expect((await h.storage.transaction((tx) => tx.deliveries.claimEvents(10, f.at()))).map((e) => e.id)).toEqual([event.id]);
  });

  it("a group holds at most maxUnits units", async () => {
    const h = await open({ groupLimits: { maxUnits: 2, maxMs: 60_000 } });
    const f = createFixtures();
    await Promise.all(range(5).map(() => h.storage.transaction((tx) => tx.organizations.insert(f.organization()))));
    expect(h.log.filter((s) => s === "COMMIT")).toHaveLength(3);
    expect(unitsPerGroup(h.log)).toEqual([2, 2, 1]);
  });

  it("a group stops taking units maxMs after its BEGIN", async () => {
    const h = await open({ groupLimits: { maxMs: 20 } });
    const f = createFixtures();
    // Each unit takes at least 12 ms: a third would start 24 ms or more after BEGIN.
    await Promise.all(
      range(6).map(() =>
        h.storage.transaction(async (tx) => {
          await tx.organizations.insert(f.organization());
          await sleep(12);
        }),
      ),
    );
    const groups = unitsPerGroup(h.log);
    expect(groups.reduce((sum, n) => sum + n, 0)).toBe(6);
    for (const size of groups) expect(size).toBeLessThanOrEqual(2);
  });

  it.each([
    ["units", { maxUnits: 8, maxMs: 60_000 }],
    ["milliseconds", { maxUnits: 1_000_000, maxMs: 5 }],
  ])("a stream of units that never pauses is still answered, group by group (a cap in %s)", async (_cap, groupLimits) => {
    const h = await open({ groupLimits });
    const f = createFixtures();
    let resolved = 0;
    let writing = true;
    const pending: Promise<void>[] = [];
    // Every unit asks for the next one as it starts: the queue never empties, so only a cap ends
    // a group; without one, no unit would ever be answered.
    const stream = (): void => {
      if (!writing) return;
      const unit = h.storage.transaction(async (tx) => {
        stream();
        await tx.organizations.insert(f.organization());
        await sleep(0);
      });
      pending.push(unit.then(() => void (resolved += 1)));
    };
    stream();
    await sleep(100);
    const answered = resolved;
    writing = false;
    while (pending.length > 0) await Promise.all(pending.splice(0));
    expect(answered).toBeGreaterThan(0);
    expect(h.log.filter((s) => s === "COMMIT").length).toBeGreaterThan(1);
  });

  it("a task run alone (a read without reader connections, a checkpoint) runs between two groups, after the units queued before it, while units never stop coming", async () => {
    const h = await open({ readers: 0, groupLimits: { maxUnits: 8, maxMs: 60_000 } });
    const f = createFixtures();
    let resolved = 0;
    let writing = true;
    const pending: Promise<void>[] = [];
    // Every unit asks for the next one as it starts: the queue never empties, so only the cap
    // ends a group.
    const stream = (): void => {
      if (!writing) return;
      const unit = h.storage.transaction(async (tx) => {
        stream();
        await tx.organizations.insert(f.organization());
        await sleep(0);
      });
      pending.push(unit.then(() => void (resolved += 1)));
    };
    for (let i = 0; i < 4; i++) stream();
    await sleep(30);
    const started = performance.now();
    const seen = await h.storage.read(async () => {
      const inGroup = h.db.inTransaction;
      // What it sees is what had been answered: no unit of an open group, none answered unseen.
      const count = (h.db.prepare("SELECT count(*) AS n FROM organizations").get() as { n: number }).n;
      return { inGroup, count, answered: resolved };
    });
    const waited = performance.now() - started;
    writing = false;
    while (pending.length > 0) await Promise.all(pending.splice(0));
    expect(seen.inGroup).toBe(false);
    expect(seen.count).toBe(seen.answered);
    expect(seen.answered).toBeGreaterThan(0);
    expect(resolved).toBeGreaterThan(seen.answered);
    // It waited for the units queued before it (a few, in groups of 8), not for the stream to end.
    expect(waited).toBeLessThan(1000);
  });
});

describe("SQLite group commit, outside connections", () => {
  it("another connection never sees a group before its COMMIT (WAL file)", async () => {
    // One group for both units whatever the machine's speed (the 5 ms sleep may outlast maxMs).
    const h = await openLogged("file", { groupLimits: { maxMs: 60_000 } });
    try {
      const f = createFixtures();
      const [a, b] = [f.organization(), f.organization()];
      const outside = h.outside!;
      const seen: number[] = [];
      const count = () => (outside.prepare("SELECT count(*) AS n FROM organizations WHERE id IN (?, ?)").get(a.id, b.id) as { n: number }).n;
      await Promise.all([
        h.storage.transaction(async (tx) => {
          await tx.organizations.insert(a);
          await sleep(5);
          seen.push(count());
        }),
        h.storage.transaction(async (tx) => {
          await tx.organizations.insert(b);
          seen.push(count());
        }),
      ]);
      expect(seen).toEqual([0, 0]);
      expect(count()).toBe(2);
    } finally {
      await h.close();
    }
  });
});

/** How many units each group of the log ran (BEGIN … COMMIT; the first unit runs without a savepoint). */
function unitsPerGroup(log: string[]): number[] {
  const sizes: number[] = [];
  for (const statement of log) {
    if (statement === "BEGIN IMMEDIATE") sizes.push(1);
    else if (statement === "SAVEPOINT casekit_unit") sizes[sizes.length - 1]! += 1;
  }
  return sizes;
}
