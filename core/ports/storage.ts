import type { AuditEntry } from "../audit/types.js";
import type { Case, CaseFilter } from "../cases/types.js";
import type { DomainEvent } from "../events/types.js";
import type { StoredApiKey } from "../keys/types.js";
import type { Organization } from "../organizations/types.js";
import type { StoredUser, UserRole, UserStatus } from "../users/types.js";
import type { KeyStatus, KeyTier } from "../keys/types.js";
import type { Team, TeamFilter } from "../teams/types.js";
import type { TlpAuditEntry, TlpAuditFilter } from "../tlp/types.js";
import type { Session, SignInThrottle } from "../account/types.js";

/**
 * The storage port. Adapters (adapters/sqlite, adapters/postgres) implement it and must pass the
 * conformance suite in test/conformance.
 *
 * Invariants every adapter keeps:
 * - Tenant isolation: every repository method that reads or writes tenant data takes the
 *   organization id and never returns or touches another organization's rows. The only lookups
 *   not scoped by organization are the ones that establish it (a key by its hash, an
 *   organization by id).
 * - Records go in and come out as the plain objects of the core's types; timestamps are ISO 8601
 *   UTC strings with milliseconds; absent optional values are `null`, never `undefined`.
 * - A unique-constraint violation surfaces as `CaseKitError("conflict")`; nothing else is
 *   translated, and no SQL text reaches an error message.
 */
export interface Storage {
  /**
   * Runs `work` as one atomic unit: every write inside commits together, or, if `work` throws,
   * none does and the error is rethrown. Units of work never observe each other's uncommitted
   * writes and never interleave statements, even when `work` awaits. Never start another unit
   * (transaction or read) from inside `work`: use the `tx` given (SQLite would wait forever).
   */
  transaction<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T>;
  /**
   * Runs read-only `work` with the cheapest isolation the adapter offers: each read sees only
   * committed data. Writes inside `read` are a programming error.
   */
  read<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T>;
  /** Applies the shipped migrations; safe to run on every start and from several processes. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface UnitOfWork {
  organizations: OrganizationRepository;
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  cases: CaseRepository;
  audit: AuditRepository;
  events: EventRepository;
  teams: TeamRepository;
  tlpAudit: TlpAuditRepository;
  sessions: SessionRepository;
  signInThrottles: SignInThrottleRepository;
}

export interface PageRequest {
  /** Rows to return at most. */
  limit: number;
  /** Keyset position: return only records whose id sorts before this one (newest first). */
  beforeId?: string;
}

export interface OrganizationRepository {
  /** Throws conflict when the name is taken. */
  insert(org: Organization): Promise<void>;
  findById(id: string): Promise<Organization | null>;
  /** Replaces name, policy and updatedAt. */
  update(org: Organization): Promise<void>;
  /** Existing ids among `ids` (used to check references to other organizations). */
  existingIds(ids: readonly string[]): Promise<string[]>;
  /** Atomically increments and returns the organization's case counter (1, 2, 3 …). */
  nextCaseNumber(organizationId: string): Promise<number>;
}

export interface UserRepository {
  /** Throws conflict when the email is taken (emails are unique across the deployment). */
  insert(user: StoredUser): Promise<void>;
  findById(organizationId: string, id: string): Promise<StoredUser | null>;
  /** Emails are stored lower-case; sign-in looks a user up by email across organizations. */
  findByEmail(email: string): Promise<StoredUser | null>;
  /** Replaces the stored user (same id and organization). */
  update(user: StoredUser): Promise<void>;
  /** Newest first. */
  list(organizationId: string, filter: UserFilter, page: PageRequest): Promise<StoredUser[]>;
}

export interface UserFilter {
  status?: UserStatus[];
  role?: UserRole[];
  email?: string;
}

export interface ApiKeyRepository {
  insert(key: StoredApiKey): Promise<void>;
  /**
   * The key with this hash together with its owner, or null. Not scoped by organization: the key
   * is what establishes the organization.
   */
  findByHash(hash: string): Promise<{ key: StoredApiKey; owner: StoredUser } | null>;
  touchLastUsed(organizationId: string, id: string, at: string): Promise<void>;
  findById(organizationId: string, id: string): Promise<StoredApiKey | null>;
  /** Replaces the stored key (same id and organization). */
  update(key: StoredApiKey): Promise<void>;
  delete(organizationId: string, id: string): Promise<void>;
  /** Newest first. */
  list(organizationId: string, filter: ApiKeyFilter, page: PageRequest): Promise<StoredApiKey[]>;
}

export interface ApiKeyFilter {
  status?: KeyStatus[];
  tier?: KeyTier[];
  userId?: string;
}

export interface CaseRepository {
  /** Throws conflict when (organizationId, number) is taken. */
  insert(record: Case): Promise<void>;
  findById(organizationId: string, id: string): Promise<Case | null>;
  /**
   * A case of another organization whose `organizations` list names `viewerOrganizationId`, or
   * null. Policy checks are the core's; this only answers "is it shared with me".
   */
  findSharedWith(viewerOrganizationId: string, id: string): Promise<Case | null>;
  /** Replaces the stored record with `record` (same id and organization); false if none. */
  update(record: Case): Promise<boolean>;
  /** Newest first (descending id), at most `page.limit` records matching `filter`. */
  list(organizationId: string, filter: CaseFilter, page: PageRequest): Promise<Case[]>;
}

/** Append-only. */
export interface AuditRepository {
  append(entry: AuditEntry): Promise<void>;
  list(organizationId: string, page: PageRequest): Promise<AuditEntry[]>;
}

export interface TeamRepository {
  /** Throws conflict when the organization already has a team of that name. */
  insert(team: Team): Promise<void>;
  findById(organizationId: string, id: string): Promise<Team | null>;
  update(team: Team): Promise<void>;
  /** Newest first; `name` matches exactly. */
  list(organizationId: string, filter: TeamFilter, page: PageRequest): Promise<Team[]>;
}

/**
 * The TLP audit log: append-only (adapters install triggers that refuse UPDATE and DELETE) and
 * hash-chained per organization; the chain's head (last seq and hash) is kept with the
 * organization.
 */
export interface TlpAuditRepository {
  /**
   * The organization's chain head ({ seq: 0, hash: "" } before the first entry, and for an unknown
   * organization). Inside a
   * transaction it locks the head until the unit of work ends, so two writers never fork the chain.
   */
  head(organizationId: string): Promise<{ seq: number; hash: string }>;
  /**
   * Inserts the entry and moves the head to it. An entry that does not directly extend the head
   * (seq ≠ head.seq + 1, or prevHash ≠ head.hash) is refused with conflict before anything is written.
   */
  append(entry: TlpAuditEntry): Promise<void>;
  /** Newest first, filtered; `actorId` matches the user or the key. `from` inclusive, `to` exclusive. */
  list(organizationId: string, filter: TlpAuditFilter, page: PageRequest): Promise<TlpAuditEntry[]>;
  /** Chain order (seq ascending) from `afterSeq` + 1, at most `limit` entries: for verification. */
  chain(organizationId: string, afterSeq: number, limit: number): Promise<TlpAuditEntry[]>;
}

export interface SessionRepository {
  insert(session: Session): Promise<void>;
  /** The session with this token hash and its owner; not scoped: the token establishes the organization. */
  findByTokenHash(tokenHash: string): Promise<{ session: Session; owner: StoredUser } | null>;
  delete(organizationId: string, id: string): Promise<void>;
}

/** Failed sign-in counters by email; not scoped by organization (the email may be nobody's). */
export interface SignInThrottleRepository {
  get(email: string): Promise<SignInThrottle | null>;
  /** Inserts or replaces the counter of `throttle.email`. */
  put(throttle: SignInThrottle): Promise<void>;
  clear(email: string): Promise<void>;
}

/** The transactional outbox. */
export interface EventRepository {
  append(event: DomainEvent): Promise<void>;
  list(organizationId: string, page: PageRequest): Promise<DomainEvent[]>;
  findById(organizationId: string, id: string): Promise<DomainEvent | null>;
}
