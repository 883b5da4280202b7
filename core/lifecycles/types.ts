/**
 * Lifecycles as data: each organization has, per entity, the statuses its records move through
 * and the transitions between them. Everything else in casekit (closed records, closing a case's
 * tasks, mandatory tasks, closedAt) asks a status's `category` or `final` flag, never its key, so
 * an organization may name its statuses as it likes.
 */
import type { UserRole } from "../users/types.js";

export const lifecycleEntities = ["case", "alert", "task"] as const;
export type LifecycleEntity = (typeof lifecycleEntities)[number];

export const statusCategories = ["new", "in_progress", "on_hold", "resolved", "closed"] as const;
export type StatusCategory = (typeof statusCategories)[number];

export interface LifecycleStatus {
  key: string;
  label: string;
  category: StatusCategory;
  /**
   * The work is over. A final case or alert is a closed record (core/access/closed-records.ts): it
   * takes only lifecycle moves until it is reopened. A final task no longer holds its case open.
   */
  final: boolean;
  color: string | null;
}

/**
 * Who may take a transition besides the gates: a user role, or `assignee`, the record's assignee
 * as stored before the request.
 */
export const transitionRoles = ["admin", "analyst", "read_only", "assignee"] as const;
export type TransitionRole = UserRole | "assignee";

export interface LifecycleTransition {
  /** The statuses it leaves from. */
  from: string[];
  to: string;
  /** Who may take it (any of); absent: whoever may change the record. */
  roles?: TransitionRole[];
  /** Gates that must hold (all of): see core/lifecycles/gates.ts. */
  requires?: string[];
}

export interface LifecycleDefinition {
  statuses: LifecycleStatus[];
  transitions: LifecycleTransition[];
}

/**
 * The key of the lifecycle every record of an entity follows unless told otherwise: the one
 * `/lifecycles/{entity}` reads and publishes. An organization may publish further named case
 * lifecycles (`/lifecycles/case/named/{key}`) that case types point their cases at.
 */
export const defaultLifecycleKey = "default";

/** A lifecycle an organization's records of one entity follow now. */
export interface Lifecycle extends LifecycleDefinition {
  entity: LifecycleEntity;
  /** `default`, or the key of a named case lifecycle. */
  key: string;
  /** 0 for the built-in default (no stored version), then 1, 2, … per publication. */
  version: number;
}

/** One published version, as stored. */
export interface StoredLifecycle extends Lifecycle {
  id: string;
  organizationId: string;
  /** How the statuses of the version before map onto this one's (removed key → new key). */
  mapping: Record<string, string>;
  createdAt: string;
  createdBy: string | null;
}
