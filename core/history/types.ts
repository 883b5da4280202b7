import type { LifecycleEntity, StatusCategory } from "../lifecycles/types.js";

/**
 * One status change of one record: what SLA clocks and metrics read (time in each category).
 * `from` is null for the record's first status (its creation, or the backfill of a record that
 * existed before history was kept). Categories are those of the lifecycle at the time, so a
 * later renaming or remapping never rewrites what happened.
 */
export interface StatusChange {
  id: string;
  organizationId: string;
  entity: LifecycleEntity;
  recordId: string;
  from: string | null;
  to: string;
  fromCategory: StatusCategory | null;
  toCategory: StatusCategory | null;
  actorUserId: string | null;
  actorKeyId: string | null;
  at: string;
  reason: string | null;
}
