import type { UnitOfWork } from "../ports/storage.js";

/**
 * The case a record lives in, from the record alone: a case is its own, a task or an observable
 * names its case, a comment on a case names it as its parent. Undefined for anything else (a
 * comment on a task: caseOfTarget looks the task up).
 */
export function caseOfRecord(resourceType: string, record: object): string | undefined {
  const fields = record as Record<string, unknown>;
  if (resourceType === "case") return typeof fields.id === "string" ? fields.id : undefined;
  if (typeof fields.caseId === "string") return fields.caseId;
  if (fields.parentType === "case" && typeof fields.parentId === "string") return fields.parentId;
  return undefined;
}

/** caseOfRecord, and for a comment on a task the task's case (one lookup). */
export async function caseOfTarget(tx: UnitOfWork, organizationId: string, resourceType: string, record: object): Promise<string | undefined> {
  const known = caseOfRecord(resourceType, record);
  if (known !== undefined) return known;
  const fields = record as Record<string, unknown>;
  if (resourceType === "comment" && fields.parentType === "task" && typeof fields.parentId === "string") {
    return (await tx.tasks.findById(organizationId, fields.parentId))?.caseId;
  }
  return undefined;
}
