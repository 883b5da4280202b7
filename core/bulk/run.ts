/**
 * The one bulk mechanism every bulk endpoint runs on (conventions, "Bulk operations").
 *
 * How to add a bulk operation to a resource:
 *
 * 1. Schema: `bulkRequestSchema(filtersSchema, { fields: … })` (core/bulk/schema.ts) builds the
 *    body from the list endpoint's filters (their JSON form) and the operation's own members;
 *    `bulkResultSchema("updated")` the answer. Parse with `parse()`, then
 *    `selectionOf(body, {})` gives `{ kind: "ids", ids }` or `{ kind: "all", filters }`.
 * 2. Check what does not depend on a record before building the plan (e.g. the caller's
 *    clearance for a new `tlp`), so a bad request fails whole, with nothing changed.
 * 3. Build a BulkPlan (core/bulk/types.ts): `load` (many ids, one query), `select` (one keyset
 *    page of the filtered list, within the caller's clearance), `apply` (pure: the changed record
 *    or `{ skip: code }`), `save` (many records at once), optional `prepare` (checks that read
 *    storage), plus the resource type, scope, verb and event name.
 * 4. `return runBulk(deps, principal, plan, selection)`.
 *
 * What runBulk guarantees: the scope is checked first (403 for the whole request); everything
 * runs in ONE storage.transaction, so a fault halfway (a throw from any callback or repository)
 * leaves nothing changed; each record named is either changed or reported in `skipped` with a
 * code (not_found for unknown, deleted and other-tenant ids alike; tlp_restricted when the record
 * or its parent is above the caller's clearance; or the code `apply` gave), never dropped; each
 * changed record gets its own audit entry and outbox event carrying the request's `bulk_…` id;
 * the TLP audit log gets an entry for each denial, each change of marking, and each change to a
 * record at AMBER+STRICT or above (as lists audit what they show), not for routine edits of
 * lower markings. Those per-record entries are what readers see; storage holds ONE audit entry,
 * ONE event and ONE TLP audit entry for the whole operation, each listing the records
 * (group entries, core/log/groups.ts; the TLP entry's hash covers the list), written once the
 * last page is saved, so a selectAll over 100 000 records writes three log rows, not 200 000.
 *
 * Records that are closed (a closed alert, a task of a closed case: `closed` on the candidate)
 * are skipped as record_closed (core/access/closed-records.ts).
 *
 * Size: one request touches at most `config.bulkMaxRows` records (default 10 000): more ids, or a
 * selectAll matching more, is bulk_too_large (400, the maximum in the problem) and changes
 * nothing (ids are counted before anything is read; a selectAll is refused when its walk passes
 * the maximum, and the unit rolls back what its pages changed).
 *
 * Cost: ids are loaded 250 per query; selectAll walks the filtered list in keyset pages of
 * 250 inside the transaction and processes each page as it reads it; each page is saved with one
 * `save` call, and its records' audit and event items are built then (bulkItemsOf), so the work
 * per record is spread between the storage calls. The event items go to the storage page by
 * page (EventRepository.groupItems: chunk rows as they fill), so neither the records nor their
 * event payloads are held for the whole operation: held to the end, they survived every
 * young-generation collection (15-40 ms pauses for the requests served meanwhile; 1.26 s of
 * collections over three 100 000-alert bulks, 0.85 s since). The audit items go to storage page
 * by page the same way (AuditRepository.groupItems) and are also kept, small, for the entry's
 * hash: written at the end they were a third of the stretch after the last page in which nothing
 * else runs. The audit and TLP audit rows, and the event's own row, are written at the end (the
 * event by column: core/log/compact-items.ts; the storage writes each row's JSON a piece at a
 * time). The per-record path is pure JavaScript. Pages are small so that no single statement or
 * page of JavaScript keeps the event loop long: on SQLite a long unit yields the event loop
 * every 2 ms between statements (adapters/sqlite/yielding-unit.ts), and a server takes in one new
 * connection per turn, so a page's stretch bounds how fast requests are let in during a bulk. The
 * unit is marked long: SQLite runs its statements and its COMMIT in a worker thread
 * (adapters/sqlite/long-units.ts), so only its JavaScript shares the event loop with requests.
 */
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { bulkItemsOf, bulkWritersOf, recordBulkChanges } from "../audit/record-change.js";
import type { BulkWriters } from "../audit/record-change.js";
import { eventView } from "../custom-fields/event-view.js";
import type { AuditItem } from "../audit/types.js";
import type { EventItem } from "../events/types.js";
import type { CaseKitDeps } from "../context.js";
import type { UnitOfWork } from "../ports/storage.js";
import { appendTlpAuditMany } from "../tlp/audit-log.js";
import { withinClearance } from "../access/clearance.js";
import { effectiveTlp } from "../tlp/effective.js";
import type { TlpAccess } from "../tlp/audit-log.js";
import { tlpAuditListThreshold } from "../tlp/levels.js";
import { defaultBulkMaxRows, refuseAboveMaxRows } from "./limit.js";
import type { BulkSelection } from "./schema.js";
import type { BulkCandidate, BulkPlan, BulkResult, BulkSkipped } from "./types.js";
import { definitionsOf } from "../custom-fields/definitions.js";
import type { CustomFieldDefinition } from "../custom-fields/types.js";

/** Ids per `load` call. */
const loadChunk = 250;
/** Records per selectAll page (the benchmarks read pages of this size). */
export const selectPage = 250;

export async function runBulk<T extends { id: string; tlp: number }, V extends string, F>(
  deps: CaseKitDeps,
  principal: Principal,
  plan: BulkPlan<T, V>,
  selection: BulkSelection<F>,
): Promise<BulkResult<V>> {
  requireScope(principal, plan.scope);
  const now = deps.clock.now();
  const at = now.toISOString();
  const bulkRequestId = deps.ids.next("bulk");
  const skipped: BulkSkipped[] = [];
  let matched = 0;
  let changed = 0;
  /** What the operation's audit and TLP audit rows list, gathered page by page (its event's items go to storage with each page). */
  const auditItems: AuditItem[] = [];
  const accesses: TlpAccess[] = [];
  /** The organization's custom field definitions, read once for the operation's event views. */
  let fieldDefinitions: readonly CustomFieldDefinition[] | undefined;

  /**
   * The pages' writes sent so far (each page's save, then its event items), in page order. A page
   * is processed while the one before it is still being written (see `process`); this settles
   * when every write sent so far has, and fails with the first that failed.
   */
  let writing: Promise<void> = Promise.resolve();

  /**
   * Applies the operation to one page of candidates and sends its writes: the changed records,
   * then their event items. Returns once the PREVIOUS page's writes are done, so the storage
   * always has this page's save queued while the caller reads and applies the next page: where
   * statements run off the thread (SQLite's long units, PostgreSQL) the page's JavaScript and the
   * save before it overlap (the main thread waited 1.4-1.7 s per 100 000-alert bulk on saves
   * when each page awaited its own). At most two pages' writes are pending.
   */
  async function process(tx: UnitOfWork, writers: BulkWriters, candidates: readonly BulkCandidate<T>[]): Promise<void> {
    const updates: { before: T; after: T; inherited: number }[] = [];
    const denied: BulkCandidate<T>[] = [];
    for (const candidate of candidates) {
      const { record } = candidate;
      if (!withinClearance(effectiveTlp(record.tlp, [candidate.inherited]), principal.tlpClearance)) {
        skipped.push({ id: record.id, code: "tlp_restricted" });
        denied.push(candidate);
        continue;
      }
      if (candidate.closed) {
        skipped.push({ id: record.id, code: "record_closed" });
        continue;
      }
      const outcome = plan.apply(record, at);
      if ("skip" in outcome) skipped.push({ id: record.id, code: outcome.skip });
      else updates.push({ before: record, after: outcome, inherited: candidate.inherited });
    }
    // Custom field values above an event's TLP stay out of it (core/custom-fields/event-view.ts),
    // by the definitions read at the first page that needs them: one operation, one set of rules
    // for all its records (and on PostgreSQL no definitions round trip per page).
    const definitions = updates.some((u) => "customFields" in u.after) ? (fieldDefinitions ??= await definitionsOf(deps, tx, principal.organizationId)) : [];
    // The page's save runs while its items are built (plain JavaScript, no statement): where the
    // storage executes off the thread (SQLite's long units, PostgreSQL) the two overlap. Beside
    // it the next page's read and the previous page's writes may be in flight; a failure of any
    // is the unit's, awaited before the unit ends.
    const saving = updates.length > 0 ? plan.save(tx, updates.map((u) => u.after)) : undefined;
    const eventItems: EventItem[] = [];
    const pageAudit: AuditItem[] = [];
    try {
      // Events and TLP audit entries carry the effective TLP: a task's marking or its case's, whichever is higher.
      for (const { before, after, inherited } of updates) {
        const tlp = effectiveTlp(after.tlp, [inherited]);
        const items = bulkItemsOf(eventView(before, definitions, tlp), eventView(after, definitions, tlp), tlp, plan.resourceType);
        auditItems.push(items.audit);
        pageAudit.push(items.audit);
        eventItems.push(items.event);
      }
    } catch (error) {
      // The unit never ends with a statement of it still running (it would outlive the rollback).
      await saving?.catch(() => undefined);
      throw error;
    }
    for (const { before, after, inherited } of updates) {
      const marked = after.tlp !== before.tlp;
      const tlpBefore = effectiveTlp(before.tlp, [inherited]);
      if (marked || tlpBefore >= tlpAuditListThreshold) {
        accesses.push({ resourceType: plan.resourceType, resourceId: after.id, action: marked ? "change" : plan.tlpAction, tlpBefore, tlpAfter: effectiveTlp(after.tlp, [inherited]), outcome: "allowed" });
      }
    }
    for (const { record, inherited } of denied) {
      const tlp = effectiveTlp(record.tlp, [inherited]);
      accesses.push({ resourceType: plan.resourceType, resourceId: record.id, action: plan.tlpAction, tlpBefore: tlp, tlpAfter: tlp, outcome: "denied" });
    }
    changed += updates.length;
    // Handled now, awaited below: its failure is the unit's, reported once the page before it settles.
    saving?.catch(() => undefined);
    const previous = writing;
    // Both settle before anything else is sent or the unit ends; the event items follow the save,
    // so the chunk insert they may send follows it.
    writing = Promise.allSettled([previous, saving]).then(async ([before, saved]) => {
      if (before.status === "rejected") throw before.reason;
      if (saved.status === "rejected") throw saved.reason;
      await writers.eventItems.add(eventItems);
      await writers.auditItems.add(pageAudit);
    });
    writing.catch(() => undefined);
    await previous;
  }

  /** The operation's audit entry, event and TLP audit entry, each one row listing the records. */
  async function record(tx: UnitOfWork, writers: BulkWriters): Promise<void> {
    await recordBulkChanges(deps, tx, principal, { name: plan.event, resourceType: plan.resourceType, bulkRequestId, now, audit: auditItems, writers });
    await appendTlpAuditMany(deps, tx, principal, accesses, now, bulkRequestId);
  }

  const maxRows = deps.config.bulkMaxRows ?? defaultBulkMaxRows;
  if (selection.kind === "ids") refuseAboveMaxRows(selection.ids.length, maxRows, "ids");

  /** Every record of the selection, page by page (ids: in the order given; selectAll: down the ids). */
  async function walk(tx: UnitOfWork, writers: BulkWriters): Promise<void> {
    if (selection.kind === "ids") {
      matched = selection.ids.length;
      for (let start = 0; start < selection.ids.length; start += loadChunk) {
        const chunk = selection.ids.slice(start, start + loadChunk);
        const found = new Map((await plan.load(tx, chunk)).map((c) => [c.record.id, c]));
        const firstSkip = skipped.length;
        const ordered: BulkCandidate<T>[] = [];
        for (const id of chunk) {
          const candidate = found.get(id);
          if (candidate) ordered.push(candidate);
          else skipped.push({ id, code: "not_found" });
        }
        await process(tx, writers, ordered);
        // Request order, so the answer lists skipped ids as the client sent them.
        const position = new Map(chunk.map((id, index) => [id, index]));
        const chunkSkips = skipped.splice(firstSkip).sort((a, b) => position.get(a.id)! - position.get(b.id)!);
        skipped.push(...chunkSkips);
      }
      return;
    }
    // Each keyset page is processed as it is read, so no more than three pages of records are
    // held (one being written, one applied, the next being read). The walk goes down the ids and
    // a change never moves a record's id: what a page changes lies above the next page's
    // `beforeId`, so a change never moves the selection, whatever the filters, and the next page
    // can be read while this one is written: where the storage runs statements off the thread
    // (SQLite's long units, PostgreSQL) the read overlaps this page's JavaScript (8 % of a
    // 100 000-alert bulk). The unit's statements run in the order they are sent. Past the
    // maximum the request is refused; the unit rolls back, nothing changed.
    let next: Promise<BulkCandidate<T>[]> | undefined = plan.select(tx, { limit: selectPage });
    while (next !== undefined) {
      const page: BulkCandidate<T>[] = await next;
      matched += page.length;
      next = page.length < selectPage ? undefined : plan.select(tx, { limit: selectPage, beforeId: page[page.length - 1]!.record.id });
      try {
        refuseAboveMaxRows(matched, maxRows, "all");
        await process(tx, writers, page);
      } catch (error) {
        await next?.catch(() => undefined);
        throw error;
      }
    }
  }

  await deps.storage.transaction(async (tx) => {
    const writers = bulkWritersOf(deps, tx, principal);
    try {
      await plan.prepare?.(tx);
      await walk(tx, writers);
      await writing;
    } catch (error) {
      // The unit never ends with a statement of it still running (it would outlive the rollback).
      await writing.catch(() => undefined);
      throw error;
    }
    await record(tx, writers);
  }, { long: true });

  return { matched, [plan.verb]: changed, skipped, bulkRequestId } as BulkResult<V>;
}
