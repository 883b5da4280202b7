import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { highestTlp } from "../access/clearance.js";
import { effectiveTlp } from "./effective.js";
import type { TlpResourceType } from "./types.js";

/**
 * Which record is whose child: the one place that knows the tree the effective TLP follows
 * (core/tlp/effective.ts). Cases and alerts are roots; a task belongs to a case; an observable to
 * a case or an alert; a comment to a case, an alert or a task (and so, through the task, to its
 * case). Ancestors are the organization's own live records: an unknown, other-tenant or deleted
 * parent cuts the line.
 */

/** A record that can have children. */
export type ParentRef = { kind: "case" | "alert" | "task"; id: string };

/** One record on the way to another, with its own marking. */
export interface Marking {
  resourceType: TlpResourceType;
  id: string;
  tlp: number;
}

/** What a record says about its parent, per resource type. */
type ChildFields = { caseId?: string | null; alertId?: string | null; parentType?: string; parentId?: string };

/** The record's parent, or null for a root (a case, an alert, or a resource without TLP). */
export function parentOf(resourceType: string, of: object): ParentRef | null {
  const record = of as ChildFields;
  switch (resourceType) {
    case "task":
      return record.caseId ? { kind: "case", id: record.caseId } : null;
    case "observable":
      if (record.caseId) return { kind: "case", id: record.caseId };
      return record.alertId ? { kind: "alert", id: record.alertId } : null;
    case "comment":
      return record.parentId && isParentKind(record.parentType) ? { kind: record.parentType, id: record.parentId } : null;
    default:
      return null;
  }
}

function isParentKind(kind: string | undefined): kind is ParentRef["kind"] {
  return kind === "case" || kind === "alert" || kind === "task";
}

/**
 * `parent` and every record above it, nearest first, each with its own marking; null when any of
 * them is not a live record of the organization.
 */
export async function lineageOf(tx: UnitOfWork, organizationId: string, parent: ParentRef): Promise<Marking[] | null> {
  switch (parent.kind) {
    case "case": {
      const found = await tx.cases.findById(organizationId, parent.id);
      return found ? [{ resourceType: "case", id: found.id, tlp: found.tlp }] : null;
    }
    case "alert": {
      const found = await tx.alerts.findById(organizationId, parent.id);
      return found ? [{ resourceType: "alert", id: found.id, tlp: found.tlp }] : null;
    }
    case "task": {
      const task = await tx.tasks.findById(organizationId, parent.id);
      if (!task) return null;
      const above = await lineageOf(tx, organizationId, { kind: "case", id: task.caseId });
      return above ? [{ resourceType: "task", id: task.id, tlp: task.tlp }, ...above] : null;
    }
  }
}

/** lineageOf, or not_found naming the parent (unknown, other-tenant and deleted ids alike). */
export async function loadLineage(tx: UnitOfWork, organizationId: string, parent: ParentRef): Promise<Marking[]> {
  const lineage = await lineageOf(tx, organizationId, parent);
  if (!lineage) throw new CaseKitError("not_found", `No ${parent.kind} ${parent.id}`);
  return lineage;
}

/**
 * The highest marking among a record's ancestors (0 for a root). A parent that cannot be found
 * counts as RED: whatever is written about such a record goes out as restricted as possible.
 */
export async function inheritedTlp(tx: UnitOfWork, organizationId: string, resourceType: string, record: object): Promise<number> {
  return inheritedFrom(await recordLineage(tx, organizationId, resourceType, record));
}

/** The record's ancestors, nearest first (lineageOf): [] for a root, null when one is gone. */
export async function recordLineage(tx: UnitOfWork, organizationId: string, resourceType: string, record: object): Promise<Marking[] | null> {
  const parent = parentOf(resourceType, record);
  return parent ? lineageOf(tx, organizationId, parent) : [];
}

/** The marking a record inherits from its ancestors (recordLineage); a missing one fails closed (highest). */
export function inheritedFrom(lineage: readonly Marking[] | null): number {
  return lineage ? effectiveTlp(0, lineage.map((m) => m.tlp)) : highestTlp;
}

/** Ids per batch lookup (the repositories' findMany take at most 500). */
const batch = 500;

/**
 * inheritedTlp for a page of records of one type (a list), with one query per 500 parents of a
 * kind instead of one per record. Keyed by record id.
 */
export async function inheritedTlpOfMany<T extends { id: string }>(
  tx: UnitOfWork,
  organizationId: string,
  resourceType: string,
  records: readonly T[],
): Promise<Map<string, number>> {
  const parents = records.map((record) => parentOf(resourceType, record));
  const wanted = { case: new Set<string>(), alert: new Set<string>(), task: new Set<string>() };
  for (const parent of parents) if (parent) wanted[parent.kind].add(parent.id);
  const markings = new Map<string, number>();
  const key = (parent: ParentRef) => `${parent.kind}:${parent.id}`;
  for (const ids of chunks(wanted.case)) {
    for (const found of await tx.cases.findMany(organizationId, ids)) markings.set(`case:${found.id}`, found.tlp);
  }
  for (const ids of chunks(wanted.alert)) {
    for (const found of await tx.alerts.findMany(organizationId, ids)) markings.set(`alert:${found.id}`, found.tlp);
  }
  for (const ids of chunks(wanted.task)) {
    for (const { task, caseTlp } of await tx.tasks.findMany(organizationId, ids)) markings.set(`task:${task.id}`, effectiveTlp(task.tlp, [caseTlp]));
  }
  return new Map(records.map((record, index) => {
    const parent = parents[index];
    return [record.id, parent ? (markings.get(key(parent)) ?? highestTlp) : 0];
  }));
}

function* chunks(ids: Set<string>): Generator<string[]> {
  const all = [...ids];
  for (let start = 0; start < all.length; start += batch) yield all.slice(start, start + batch);
}
