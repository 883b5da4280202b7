import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Alert, AlertSourceCount, AlertSourceCountFilter } from "../../core/index.js";
import { alertStatuses } from "../../core/alerts/lifecycle.js";
import { alertRecord } from "./alert-record.js";
import type { SuiteContext } from "./suite-context.js";

const hourMs = 3_600_000;
const start = Date.parse("2026-03-01T00:00:00.000Z");
const sources = ["edr", "ids", "siem", "waf"] as const;
const iso = (ms: number) => new Date(start + ms).toISOString();

/** An instant within six hours of `start`: on the hour half the time, so edges land on alerts. */
const instant = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map((h) => h * hourMs),
  fc.integer({ min: 0, max: 6 * hourMs - 1 }),
);
/** A bound of a query: absent, on the hour, or anywhere, reaching an hour beyond the alerts. */
const bound = fc.option(
  fc.oneof(
    fc.integer({ min: -1, max: 7 }).map((h) => h * hourMs),
    fc.integer({ min: -hourMs, max: 7 * hourMs }),
  ),
  { nil: undefined },
);

type Step =
  | { kind: "create"; source: string; status: (typeof alertStatuses)[number]; tlp: number; at: number; deleted: boolean }
  | { kind: "update"; pick: number; source?: string; status?: (typeof alertStatuses)[number]; tlp?: number }
  | { kind: "delete" | "restore" | "erase"; pick: number }
  | { kind: "assign"; picks: number[] };

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("create" as const), source: fc.constantFrom(...sources), status: fc.constantFrom(...alertStatuses), tlp: fc.integer({ min: 0, max: 4 }), at: instant, deleted: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("update" as const), pick: fc.nat(), source: maybe(fc.constantFrom(...sources)), status: maybe(fc.constantFrom(...alertStatuses)), tlp: maybe(fc.integer({ min: 0, max: 4 })) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom("delete" as const, "restore" as const, "erase" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("assign" as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }) }) },
);
const query = fc.record({
  maxTlp: fc.integer({ min: 0, max: 4 }),
  statusValue: maybe(fc.subarray([...alertStatuses], { minLength: 1 })),
  from: bound,
  to: bound,
});

/** The metric's semantics written out plainly, over every alert the test knows of. */
function bruteForce(alerts: Iterable<Alert>, filter: AlertSourceCountFilter): AlertSourceCount[] {
  const counts = new Map<string, number>();
  for (const a of alerts) {
    if (a.deletedAt !== null || a.tlp > filter.maxTlp) continue;
    if (filter.statusValue !== undefined && !filter.statusValue.includes(a.statusValue)) continue;
    if (filter.from !== undefined && a.createdAt < filter.from) continue;
    if (filter.to !== undefined && a.createdAt >= filter.to) continue;
    counts.set(a.source, (counts.get(a.source) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([source, count]) => ({ source, count }));
}

/**
 * Alerts by source against a brute-force count: the adapter keeps per-hour counters (database
 * triggers) and counts partial hours from the alerts, and none of that may show. Random sequences
 * of writes (each transaction a few of them) through every port method that writes alerts, plus a
 * hard DELETE behind the port's back, then random ranges on and off the hour.
 */
export function describeAlertMetric(ctx: SuiteContext): void {
  describe("alerts by source (counters)", () => {
    it("equals a brute-force count after any sequence of creates, updates, deletes, restores, erasures and assignments", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { maxLength: 10 }), fc.array(query, { minLength: 1, maxLength: 6 }), async (transactions, queries) => {
          const f = ctx.fixtures();
          const { org } = await ctx.seedOrganization();
          const known = new Map<string, Alert>();
          const pick = (n: number) => [...known.values()][n % known.size];
          for (const steps of transactions) {
            const erased: string[] = [];
            await ctx.storage().transaction(async (tx) => {
              for (const s of steps) {
                const at = f.at();
                if (s.kind === "create") {
                  const createdAt = iso(s.at);
                  const record = alertRecord(f.ids.next("alert"), org.id, createdAt, {
                    title: "Generated",
                    tlp: s.tlp,
                    source: s.source,
                    statusValue: s.status,
                    deletedAt: s.deleted ? at : null,
                    deletedBy: s.deleted ? "user_x" : null,
                  });
                  await tx.alerts.insert(record);
                  known.set(record.id, record);
                  continue;
                }
                if (known.size === 0) continue;
                if (s.kind === "assign") {
                  const ids = [...new Set(s.picks.map((n) => pick(n)!.id))];
                  await tx.alerts.assignMany(org.id, ids, "user_y", at);
                  for (const id of ids) if (known.get(id)!.deletedAt === null) known.set(id, { ...known.get(id)!, assigneeId: "user_y", updatedAt: at });
                  continue;
                }
                const current = pick(s.pick)!;
                if (s.kind === "erase") {
                  erased.push(current.id);
                  known.delete(current.id);
                  continue;
                }
                const next: Alert =
                  s.kind === "update"
                    ? { ...current, source: s.source ?? current.source, statusValue: s.status ?? current.statusValue, tlp: s.tlp ?? current.tlp, updatedAt: at }
                    : s.kind === "delete"
                      ? { ...current, deletedAt: at, deletedBy: "user_x" }
                      : { ...current, deletedAt: null, deletedBy: null };
                expect(await tx.alerts.update(next)).toBe(true);
                known.set(next.id, next);
              }
            });
            // Outside the port: a hard DELETE must leave the counters as exact as a soft one.
            for (const id of erased) await ctx.raw().exec("DELETE FROM alerts WHERE organization_id = ? AND id = ?", [org.id, id]);
          }
          for (const q of queries) {
            const filter: AlertSourceCountFilter = { maxTlp: q.maxTlp, ...(q.statusValue ? { statusValue: q.statusValue } : {}) };
            if (q.from !== undefined) filter.from = iso(q.from);
            if (q.to !== undefined) filter.to = iso(q.to);
            const counted = await ctx.storage().read((tx) => tx.alerts.countBySource(org.id, filter));
            expect(counted, JSON.stringify(filter)).toEqual(bruteForce(known.values(), filter));
          }
        }),
        { numRuns: 25, seed: 20260301 },
      );
    }, 120_000);

    it("keeps organizations apart and rolls the counters back with the transaction", async () => {
      const f = ctx.fixtures();
      const { org } = await ctx.seedOrganization();
      const { org: other } = await ctx.seedOrganization();
      const alert = (organizationId: string, source: string): Alert => {
        const at = f.at();
        return {
          id: f.ids.next("alert"), organizationId, title: "A", description: null, severity: 2, tlp: 1, pap: 2, typeValue: null, source, sourceRef: null,
          statusValue: "new", assigneeId: null, tags: [], customFields: {}, eventDate: null, occurrences: 1, lastSeenAt: at, caseId: null,
          createdAt: at, updatedAt: at, createdBy: null, deletedAt: null, deletedBy: null,
        };
      };
      await ctx.storage().transaction(async (tx) => {
        await tx.alerts.insert(alert(org.id, "edr"));
        await tx.alerts.insert(alert(other.id, "edr"));
        await tx.alerts.insert(alert(other.id, "waf"));
      });
      const failed = await ctx
        .storage()
        .transaction(async (tx) => {
          await tx.alerts.insert(alert(org.id, "edr"));
          await tx.alerts.insert(alert(org.id, "siem"));
          throw new Error("rolled back");
        })
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Error);
      const count = (organizationId: string) => ctx.storage().read((tx) => tx.alerts.countBySource(organizationId, { maxTlp: 4 }));
      expect(await count(org.id)).toEqual([{ source: "edr", count: 1 }]);
      expect(await count(other.id)).toEqual([
        { source: "edr", count: 1 },
        { source: "waf", count: 1 },
      ]);
    });
  });
}
