import type { z } from "zod";
import { recordStatusMoves } from "../history/record.js";
import { lifecycleOf } from "../lifecycles/current.js";
import { importedAlertStatus } from "../lifecycles/defaults.js";
import { firstNewStatus, isFinal } from "../lifecycles/engine.js";
import type { Principal } from "../access/principal.js";
import { visibleUpTo } from "../access/clearance.js";
import { requireClearance, requireScope } from "../access/principal.js";
import { recordEdit } from "../audit/record-edit.js";
import type { CaseKitDeps } from "../context.js";
import { prepareCustomFields, visibleRecords } from "../custom-fields/apply.js";
import { CaseKitError, invalidField, isCaseKitError } from "../errors.js";
import { normalizeData } from "../observables/data-types.js";
import { saveDeduplicated } from "../observables/dedupe.js";
import type { Observable } from "../observables/types.js";
import type { UnitOfWork } from "../ports/storage.js";
import { appendTlpAudit, guardTlp, TlpDeniedError, withTlpDenialAudit } from "../tlp/audit-log.js";
import { fitsFreeFormSize } from "../schema/free-form.js";
import { parse } from "../validation.js";
import { checkAssignee } from "./access.js";
import { alertCreateSchema } from "./schema.js";
import type { Alert, AlertTag } from "./types.js";

type Body = z.output<typeof alertCreateSchema>;

export interface Ingested {
  alert: Alert;
  /** True when a live alert already had (source, sourceRef) and this report was folded into it. */
  deduplicated: boolean;
  /** The alert's observables this report created or merged into. */
  observables: Observable[];
}

const defaultMarking = 2;

/**
 * Creates an alert, or, when a live alert of the organization already has the body's (source,
 * sourceRef), folds the report into it (`foldRepeat`). Race-safe: of two writers inserting the
 * same reference, the loser's insert is a conflict (alerts_source_ref_unique; the unit stays
 * usable) and it folds into the winner. The alert, its observables, their audit entries, events
 * and TLP audit entries commit in one unit of work.
 */
export async function ingestAlert(deps: CaseKitDeps, principal: Principal, input: unknown): Promise<Ingested> {
  requireScope(principal, "alerts:write");
  const body = parse(alertCreateSchema, input);
  const observables = body.observables.map((o, index) => {
    const normalized = normalizeData(o.dataType, o.data);
    if (!normalized.ok) throw invalidField(`observables.${index}.data`, normalized.message);
    return { ...o, data: normalized.value };
  });
  // Nobody may create what they could not read back.
  requireClearance(principal, Math.max(body.tlp ?? defaultMarking, ...observables.map((o) => o.tlp ?? 0)));
  const now = deps.clock.now();
  const at = now.toISOString();

  return withTlpDenialAudit(deps, principal, () =>
    deps.storage.transaction(async (tx) => {
      await checkAssignee(tx, principal, body.assigneeId);
      let alert: Alert | null = null;
      let deduplicated = false;
      // Only an alert the caller may see answers for the reference: one above their clearance is
      // never folded into, nor refused over, and the report becomes an alert of its own (one live
      // alert per reference and TLP), so the answer never tells that a hidden alert exists.
      const existing = body.sourceRef === undefined ? null : await tx.alerts.findBySourceRef(principal.organizationId, body.source, body.sourceRef, visibleUpTo(principal.tlpClearance));
      if (existing) {
        alert = await foldRepeat(deps, tx, principal, existing, body, now);
        deduplicated = true;
      } else {
        const lifecycle = await lifecycleOf(deps, tx, principal.organizationId, "alert");
        const record = newAlert(deps, principal, body, at, firstNewStatus(lifecycle));
        record.customFields = await prepareCustomFields(deps, tx, principal, { scope: "alert", input: body.customFields, previous: {}, creating: true });
        try {
          await tx.alerts.insert(record);
          await recordStatusMoves(deps, tx, principal, lifecycle, [{ recordId: record.id, from: null, to: record.statusValue }], now);
          await recordEdit(deps, tx, principal, { name: "alert.created", resourceType: "alert", before: null, after: record, now });
          alert = record;
        } catch (error) {
          // Lost a race for the same reference: fold into the winner instead.
          if (!isCaseKitError(error) || error.code !== "conflict" || body.sourceRef === undefined) throw error;
          const winner = await tx.alerts.findBySourceRef(principal.organizationId, body.source, body.sourceRef, visibleUpTo(principal.tlpClearance));
          if (!winner) throw error;
          alert = await foldRepeat(deps, tx, principal, winner, body, now);
          deduplicated = true;
        }
      }

      const saved: Observable[] = [];
      for (const o of observables) {
        const candidate: Observable = {
          id: deps.ids.next("obs"),
          organizationId: principal.organizationId,
          caseId: null,
          alertId: alert.id,
          dataType: o.dataType,
          data: o.data,
          tlp: o.tlp ?? alert.tlp,
          pap: o.pap,
          ioc: o.ioc,
          sighted: o.sighted,
          tags: o.tags,
          message: o.message ?? null,
          customFields: await prepareCustomFields(deps, tx, principal, { scope: "observable", input: o.customFields, previous: {}, creating: true }),
          createdAt: at,
          updatedAt: at,
          createdBy: principal.userId,
          deletedAt: null,
          deletedBy: null,
        };
        try {
          const { record } = await saveDeduplicated(deps, tx, principal, candidate, now);
          // Two entries of one value in the same report answer as one record, in its latest state.
          const seen = saved.findIndex((s) => s.id === record.id);
          if (seen < 0) saved.push(record);
          else saved[seen] = record;
        } catch (error) {
          // The alert already holds this value above the caller's clearance: it is recorded, and
          // the refusal is audited with the rest of the report.
          if (!(error instanceof TlpDeniedError)) throw error;
          await appendTlpAudit(deps, tx, principal, error.attempt, now);
        }
      }
      return { alert: (await visibleRecords(deps, tx, principal, [alert!]))[0]!, deduplicated, observables: await visibleRecords(deps, tx, principal, saved) };
    }),
  );
}

function newAlert(deps: CaseKitDeps, principal: Principal, body: Body, at: string, statusValue: string): Alert {
  return {
    id: deps.ids.next("alert"),
    organizationId: principal.organizationId,
    title: body.title,
    description: body.description ?? null,
    severity: body.severity,
    tlp: body.tlp ?? defaultMarking,
    pap: body.pap ?? defaultMarking,
    typeValue: body.typeValue ?? null,
    source: body.source,
    sourceRef: body.sourceRef ?? null,
    statusValue,
    assigneeId: body.assigneeId ?? null,
    tags: dedupeTags(body.tags),
    customFields: body.customFields,
    eventDate: body.eventDate === undefined ? null : new Date(body.eventDate).toISOString(),
    occurrences: 1,
    lastSeenAt: at,
    caseId: null,
    createdAt: at,
    updatedAt: at,
    createdBy: principal.userId,
    deletedAt: null,
    deletedBy: null,
  };
}

/**
 * A repeated report of a live alert. The report is the source's latest word on what happened, so
 * title, severity and (when sent) description, type and event date are taken from it; tags are
 * united by name and custom fields merged key by key (the report wins); the marking (tlp, pap)
 * only ever rises; an existing assignee stays. `occurrences` counts the report and `lastSeenAt`
 * is now. A closed alert (a final status but `imported`) reopens to the lifecycle's first status
 * of the new category (it happened again); an `imported` one stays imported.
 */
async function foldRepeat(deps: CaseKitDeps, tx: UnitOfWork, principal: Principal, before: Alert, body: Body, now: Date): Promise<Alert> {
  guardTlp(principal, before, "alert", "edit");
  const customFields = await prepareCustomFields(deps, tx, principal, { scope: "alert", input: { ...before.customFields, ...body.customFields }, previous: before.customFields, creating: false });
  if (!fitsFreeFormSize(customFields)) {
    const message = "merged with the alert's own, must serialise to at most 64 KiB";
    throw new CaseKitError("payload_too_large", `customFields: ${message}`, [{ path: "customFields", message }]);
  }
  const at = now.toISOString();
  const lifecycle = await lifecycleOf(deps, tx, principal.organizationId, "alert");
  const reopens = before.statusValue !== importedAlertStatus && isFinal(lifecycle, before.statusValue);
  const after: Alert = {
    ...before,
    title: body.title,
    severity: body.severity,
    description: body.description ?? before.description,
    typeValue: body.typeValue ?? before.typeValue,
    eventDate: body.eventDate === undefined ? before.eventDate : new Date(body.eventDate).toISOString(),
    tlp: Math.max(before.tlp, body.tlp ?? 0),
    pap: Math.max(before.pap, body.pap ?? 0),
    assigneeId: before.assigneeId ?? body.assigneeId ?? null,
    tags: unitedTags(before.tags, body.tags),
    customFields,
    statusValue: reopens ? firstNewStatus(lifecycle) : before.statusValue,
    occurrences: before.occurrences + 1,
    lastSeenAt: at,
    updatedAt: at,
  };
  await tx.alerts.update(after);
  await recordStatusMoves(deps, tx, principal, lifecycle, [{ recordId: after.id, from: before.statusValue, to: after.statusValue }], now, "reported again");
  await recordEdit(deps, tx, principal, { name: "alert.updated", resourceType: "alert", before, after, now });
  return after;
}

/** Most tags an alert keeps (the create and update bodies allow as many). */
const maxTags = 100;

/**
 * Tags united by name, the rule observables follow (core/observables/dedupe.ts): existing tags
 * keep their place, a colour fills in a missing one, new names are added while there is room.
 */
export function unitedTags(existing: readonly AlertTag[], incoming: readonly AlertTag[]): AlertTag[] {
  const tags: AlertTag[] = [];
  for (const tag of [...existing, ...incoming]) {
    const at = tags.findIndex((t) => t.name === tag.name);
    if (at < 0) tags.push(tag);
    else if (tags[at]!.color === undefined && tag.color !== undefined) tags[at] = { ...tags[at]!, color: tag.color };
  }
  return tags.slice(0, Math.max(maxTags, existing.length));
}

function dedupeTags(tags: readonly AlertTag[]): AlertTag[] {
  return unitedTags([], tags);
}
