import { describe, expect, it } from "vitest";
import type { Case, TransactionOptions, UnitOfWork } from "../../core/index.js";
import { sleep } from "./fixtures.js";
import type { SuiteContext } from "./suite-context.js";

/** A fault injected into a unit of work, recognisable when it comes back out. */
class InjectedFault extends Error {
  constructor(readonly unit: number) {
    super(`fault injected into unit ${unit}`);
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * How the tests below start their units: as ordinary units, all as long ones (`{ long: true }`,
 * which SQLite runs on a connection in a worker thread), or the two by turns.
 */
const kinds = ["ordinary", "long", "ordinary and long by turns"] as const;

/** Units of work: return values, atomicity, serialisation under concurrency, read isolation. */
export function describeUnits(ctx: SuiteContext): void {
  for (const kind of kinds) describeUnitsOf(ctx, kind);
}

function describeUnitsOf(ctx: SuiteContext, kind: (typeof kinds)[number]): void {
  let started = 0;
  const options = (): TransactionOptions | undefined => (kind === "long" || (kind !== "ordinary" && started++ % 2 === 1) ? { long: true } : undefined);
  const transaction = <T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T> => ctx.storage().transaction(work, options());

  describe(`units of work (${kind})`, () => {
    it("transaction and read resolve to what their work returns", async () => {
      expect(await transaction(async () => ({ answer: 42 }))).toEqual({ answer: 42 });
      expect(await ctx.storage().read(async () => "read")).toBe("read");
    });

    it("a unit that throws halfway leaves nothing behind and rethrows the very same error", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const fault = new InjectedFault(0);
      let record: Case | undefined;
      const newUser = f.user(org.id);
      const unit = transaction(async (tx) => {
        record = f.caseRecord(org.id, { number: await tx.organizations.nextCaseNumber(org.id) });
        await tx.cases.insert(record);
        await tx.audit.append(f.auditEntry(org.id, { target: { type: "case", id: record.id } }));
        await sleep(1);
        await tx.events.append(f.event(org.id, { resourceId: record.id }));
        await tx.users.insert(newUser);
        throw fault;
      });
      await expect(unit).rejects.toBe(fault);

      expect(record).toBeDefined();
      await ctx.storage().read(async (tx) => {
        expect(await tx.cases.findById(org.id, record!.id)).toBeNull();
        expect(await tx.cases.list(org.id, { maxTlp: 4 }, { limit: 10 })).toEqual([]);
        expect(await tx.audit.list(org.id, { limit: 10 })).toEqual([]);
        expect(await tx.events.list(org.id, { limit: 10 })).toEqual([]);
        expect(await tx.users.findById(org.id, newUser.id)).toBeNull();
      });
      // The case counter was rolled back with everything else.
      expect(await transaction((tx) => tx.organizations.nextCaseNumber(org.id))).toBe(1);
    });

    it("a statement that fails halfway (a conflict) rolls back the writes before it", async () => {
      const { org, user } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const record = f.caseRecord(org.id);
      const unit = transaction(async (tx) => {
        await tx.cases.insert(record);
        await tx.events.append(f.event(org.id, { resourceId: record.id }));
        await tx.users.insert(f.user(org.id, { email: user.email }));
      });
      await expect(unit).rejects.toMatchObject({ name: "CaseKitError", code: "conflict" });
      expect(await ctx.storage().read((tx) => tx.cases.findById(org.id, record.id))).toBeNull();
      expect(await ctx.storage().read((tx) => tx.events.list(org.id, { limit: 10 }))).toEqual([]);
    });

    it("concurrent units that await between statements never interleave: failed ones leave nothing, the rest everything", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const units = 24;
      const records = new Map<number, Case>();
      const settled = await Promise.allSettled(
        range(units).map((i) =>
          transaction(async (tx) => {
            const number = await tx.organizations.nextCaseNumber(org.id);
            await sleep(1);
            const record = f.caseRecord(org.id, { number, title: `unit ${i}` });
            records.set(i, record);
            await tx.cases.insert(record);
            await sleep(i % 2);
            await tx.audit.append(f.auditEntry(org.id, { target: { type: "case", id: record.id }, requestId: `unit-${i}` }));
            await sleep(1);
            await tx.events.append(f.event(org.id, { resourceId: record.id, payload: { unit: i } }));
            if (i % 3 === 1) throw new InjectedFault(i);
            await sleep(i % 2);
            return record;
          }),
        ),
      );

      const succeeded: Case[] = [];
      const failed: Case[] = [];
      settled.forEach((outcome, i) => {
        if (i % 3 === 1) {
          expect(outcome.status).toBe("rejected");
          expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(InjectedFault);
          expect(((outcome as PromiseRejectedResult).reason as InjectedFault).unit).toBe(i);
          failed.push(records.get(i)!);
        } else {
          expect(outcome.status).toBe("fulfilled");
          expect((outcome as PromiseFulfilledResult<Case>).value).toBe(records.get(i));
          succeeded.push(records.get(i)!);
        }
      });
      expect(succeeded).toHaveLength(16);

      await ctx.storage().read(async (tx) => {
        for (const record of succeeded) expect(await tx.cases.findById(org.id, record.id)).toStrictEqual(record);
        for (const record of failed) expect(await tx.cases.findById(org.id, record.id)).toBeNull();
        const audit = await tx.audit.list(org.id, { limit: 1000 });
        const events = await tx.events.list(org.id, { limit: 1000 });
        const expectedIds = succeeded.map((r) => r.id).sort();
        expect(audit.map((e) => e.target.id).sort()).toEqual(expectedIds);
        expect(events.map((e) => e.resourceId).sort()).toEqual(expectedIds);
        // Each audit entry and event belongs to the unit that wrote the case.
        for (const entry of audit) expect(entry.requestId).toBe(`unit-${titleUnit(succeeded, entry.target.id)}`);
        for (const event of events) expect(event.payload).toEqual({ unit: Number(titleUnit(succeeded, event.resourceId)) });
      });
      // Failed units gave their case numbers back: the survivors hold exactly 1..16.
      expect(succeeded.map((r) => r.number).sort((a, b) => a - b)).toEqual(range(16).map((i) => i + 1));
    });

    it("nextCaseNumber from N concurrent units yields exactly 1..N, per organization", async () => {
      const { org: a } = await ctx.seedOrganization();
      const { org: b } = await ctx.seedOrganization();
      const units = 30;
      const take = (organizationId: string, i: number) =>
        transaction(async (tx) => {
          await sleep(i % 2);
          const number = await tx.organizations.nextCaseNumber(organizationId);
          await sleep(1);
          return number;
        });
      const numbers = await Promise.all(range(units).flatMap((i) => [take(a.id, i), take(b.id, i)]));
      const ofA = numbers.filter((_, k) => k % 2 === 0).sort((x, y) => x - y);
      const ofB = numbers.filter((_, k) => k % 2 === 1).sort((x, y) => x - y);
      const expected = range(units).map((i) => i + 1);
      expect(ofA).toEqual(expected);
      expect(ofB).toEqual(expected);
      expect(await transaction((tx) => tx.organizations.nextCaseNumber(a.id))).toBe(units + 1);
    });

    it("a read started while a transaction is open never sees that transaction's uncommitted rows", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const record = f.caseRecord(org.id);
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));

      const unit = transaction(async (tx) => {
        await tx.cases.insert(record);
        await tx.audit.append(f.auditEntry(org.id, { target: { type: "case", id: record.id } }));
        wrote();
        await finished;
        throw new InjectedFault(1);
      });
      await written;
      const reads = Promise.all([
        ctx.storage().read((tx) => tx.cases.findById(org.id, record.id)),
        ctx.storage().read((tx) => tx.cases.list(org.id, { maxTlp: 4 }, { limit: 10 })),
        ctx.storage().read((tx) => tx.audit.list(org.id, { limit: 10 })),
      ]);
      await sleep(5); // let the reads run now if the adapter lets them
      finish();
      await expect(unit).rejects.toBeInstanceOf(InjectedFault);
      expect(await reads).toEqual([null, [], []]);
    });

    it("reads racing a committing unit see all of its writes or none of them", async () => {
      const { org } = await ctx.seedOrganization();
      const f = ctx.fixtures();
      const record = f.caseRecord(org.id);
      let done = false;
      const unit = transaction(async (tx) => {
          await tx.cases.insert(record);
          await sleep(1);
          await tx.audit.append(f.auditEntry(org.id, { target: { type: "case", id: record.id } }));
          await sleep(1);
          await tx.events.append(f.event(org.id, { resourceId: record.id }));
          await sleep(1);
        })
        .finally(() => (done = true));

      const observations: [boolean, boolean, boolean][] = [];
      const observe = () =>
        ctx.storage().read(async (tx) => {
          // Read in the reverse order of the writes: under any isolation that shows only
          // committed data, seeing a later write implies seeing the earlier ones.
          const event = (await tx.events.list(org.id, { limit: 10 })).length > 0;
          const audit = (await tx.audit.list(org.id, { limit: 10 })).length > 0;
          const found = (await tx.cases.findById(org.id, record.id)) !== null;
          observations.push([event, audit, found]);
        });
      const reads: Promise<void>[] = [observe()];
      while (!done) {
        reads.push(observe());
        await sleep(0);
      }
      await unit;
      await Promise.all(reads);
      await observe();
      for (const [event, audit, found] of observations) {
        if (event) expect(audit).toBe(true);
        if (audit) expect(found).toBe(true);
      }
      expect(observations[observations.length - 1]).toEqual([true, true, true]);
    });
  });
}

/** The unit number a case's title carries (`unit 7` → "7"). */
function titleUnit(records: Case[], id: string): string {
  return records.find((r) => r.id === id)!.title.slice("unit ".length);
}
