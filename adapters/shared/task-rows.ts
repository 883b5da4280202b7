/**
 * Task rows ↔ records, for both dialects (the conventions of adapters/shared/rows.ts).
 * SQLite stores `mandatory` as 0/1 and PostgreSQL as a boolean; reading accepts either.
 */
import type { TaskStatus } from "../../core/tasks/lifecycle.js";
import type { Task } from "../../core/tasks/types.js";
import type { RowMode } from "./rows.js";
import type { TimestampValue } from "./values.js";
import { orNull, toIsoTimestamp, toIsoTimestampOrNull } from "./values.js";

type Ts<M extends RowMode> = M extends "write" ? string : TimestampValue;
type Opt<M extends RowMode, T> = M extends "write" ? T | null : T | null | undefined;
type Flag<M extends RowMode> = M extends "write" ? number : boolean | number;
type Complete<Missing extends never> = Missing;

export interface TaskRow<M extends RowMode = "read"> {
  id: string;
  organization_id: string;
  case_id: string;
  title: string;
  description: Opt<M, string>;
  status: string;
  assignee_id: Opt<M, string>;
  due_date: Opt<M, Ts<M>>;
  mandatory: Flag<M>;
  tlp: number;
  sort_order: number;
  created_at: Ts<M>;
  updated_at: Ts<M>;
  created_by: Opt<M, string>;
  deleted_at: Opt<M, Ts<M>>;
  deleted_by: Opt<M, string>;
}

export const taskColumns = [
  "id",
  "organization_id",
  "case_id",
  "title",
  "description",
  "status",
  "assignee_id",
  "due_date",
  "mandatory",
  "tlp",
  "sort_order",
  "created_at",
  "updated_at",
  "created_by",
  "deleted_at",
  "deleted_by",
] as const satisfies readonly (keyof TaskRow)[];
type _TaskColumnsComplete = Complete<Exclude<keyof TaskRow, (typeof taskColumns)[number]>>;

/** The columns an update may change; identity, case and creation are fixed at insert. */
export const taskMutableColumns = [
  "title",
  "description",
  "status",
  "assignee_id",
  "due_date",
  "mandatory",
  "tlp",
  "sort_order",
  "updated_at",
  "deleted_at",
  "deleted_by",
] as const satisfies readonly (keyof TaskRow)[];

export function taskToRow(record: Task): TaskRow<"write"> {
  return {
    id: record.id,
    organization_id: record.organizationId,
    case_id: record.caseId,
    title: record.title,
    description: orNull(record.description),
    status: record.status,
    assignee_id: orNull(record.assigneeId),
    due_date: toIsoTimestampOrNull(record.dueDate),
    mandatory: record.mandatory ? 1 : 0,
    tlp: record.tlp,
    sort_order: record.order,
    created_at: toIsoTimestamp(record.createdAt),
    updated_at: toIsoTimestamp(record.updatedAt),
    created_by: orNull(record.createdBy),
    deleted_at: toIsoTimestampOrNull(record.deletedAt),
    deleted_by: orNull(record.deletedBy),
  };
}

export function taskFromRow(row: TaskRow): Task {
  return {
    id: row.id,
    organizationId: row.organization_id,
    caseId: row.case_id,
    title: row.title,
    description: orNull(row.description),
    status: row.status as TaskStatus,
    assigneeId: orNull(row.assignee_id),
    dueDate: toIsoTimestampOrNull(row.due_date),
    mandatory: row.mandatory === true || row.mandatory === 1,
    tlp: row.tlp,
    order: row.sort_order,
    createdAt: toIsoTimestamp(row.created_at),
    updatedAt: toIsoTimestamp(row.updated_at),
    createdBy: orNull(row.created_by),
    deletedAt: toIsoTimestampOrNull(row.deleted_at),
    deletedBy: orNull(row.deleted_by),
  };
}
