import type { AuditCheckpoint, AuditEvent, AuditEventFilter, AuditItem, ChainedAuditRow, NewAuditEvent } from "../audit/types.js";
import type { ChainHead } from "../log/chain.js";
import type { Case, CaseFilter } from "../cases/types.js";
import type { DomainEvent, EventItem, GroupEvent } from "../events/types.js";
import type { StoredApiKey } from "../keys/types.js";
import type { Organization } from "../organizations/types.js";
import type { StoredUser, UserRole, UserStatus } from "../users/types.js";
import type { KeyStatus, KeyTier } from "../keys/types.js";
import type { Team, TeamFilter } from "../teams/types.js";
import type { StoredTlpAuditEntry, TlpAuditEntry, TlpAuditFilter } from "../tlp/types.js";
import type { Session, SignInThrottle } from "../account/types.js";
import type { StoredAuditSink } from "../audit-sinks/types.js";
import type { Delivery, DeliveryAttempt, DeliveryFilter, StoredWebhook } from "../webhooks/types.js";
import type { Observable, ObservableFilter, ObservableParent } from "../observables/types.js";
import type { Task, TaskFilter, TaskWithCase } from "../tasks/types.js";
import type { Comment, CommentPageRequest, CommentParent } from "../comments/types.js";
import type { Alert, AlertFilter, AlertSourceCount, AlertSourceCountFilter } from "../alerts/types.js";
import type { AppendOnlyLog, BatchReads, GroupItemsWriter, PageRequest, RecordRepository } from "./records.js";
import type { LifecycleEntity, StoredLifecycle } from "../lifecycles/types.js";
import type { StatusChange } from "../history/types.js";
import type { CustomFieldDefinition, CustomFieldFilter } from "../custom-fields/types.js";
import type { CaseType, CaseTypeFilter } from "../case-types/types.js";

export type { AppendOnlyLog, BatchReads, GroupItemsWriter, PageRequest, RecordRepository } from "./records.js";

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
/** How a unit of work is expected to run; the guarantees are the same whatever it says. */
export interface TransactionOptions {
  /**
   * A unit that runs long (a selectAll bulk: hundreds of statements, a large commit). SQLite runs
   * it on a writer connection in a worker thread, so its statements and its COMMIT never hold
   * the event loop (adapters/sqlite/long-units.ts). PostgreSQL runs its statements on the server
   * but reads their rows on the thread that answers requests, so there a long unit gives way:
   * its statements wait while other units are in flight (adapters/shared/short-units-first.ts).
   */
  long?: boolean;
}

export interface Storage {
  /**
   * Runs `work` as one atomic unit: every write inside commits together, or, if `work` throws,
   * none does and the error is rethrown. Units of work never interleave statements, even when
   * `work` awaits, and the outcome is always that of the units that resolved running one after
   * another: a unit sees only writes that are committed, or (SQLite's group commit) those of the
   * units before it in its own group, which commit with it or fail with it. It resolves only once
   * its writes are committed, so do anything outside the storage (a cache, a message) after it
   * has resolved, not inside `work`. Never start another unit (transaction or read) from inside
   * `work`: use the `tx` given (SQLite would wait forever).
   */
  transaction<T>(work: (tx: UnitOfWork) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs read-only `work` with the cheapest isolation the adapter offers: each read sees only
   * committed data. Writes inside `read` are a programming error.
   */
  read<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T>;
  /** Applies the shipped migrations; safe to run on every start and from several processes. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Optional fast path for `OrganizationRepository.accessVersion`, read on every authenticated
   * request (core/access/access-cache.ts): same answer, without a unit of work around it. It must
   * never answer a version older than the last committed one (an uncommitted newer one only costs
   * the cache a reload). Without it the core reads the version in `read`.
   */
  accessVersion?(organizationId: string): Promise<number | null>;
  close(): Promise<void>;
  /**
   * Figures for monitoring (`/metrics`), read at once without touching the data; optional, and
   * each figure is absent where the adapter has no such thing.
   */
  stats?(): StorageStats;
}

export interface StorageStats {
  /** Size in bytes of the write-ahead log file (SQLite on a file in WAL mode). */
  walBytes?: number;
  /** A connection pool's use (PostgreSQL): connections open, of which idle, and requests waiting for one. */
  pool?: { total: number; idle: number; waiting: number };
  /** Read-only connections (SQLite on a file): how many are open, and how many run or have queued a read unit. */
  readers?: { open: number; busy: number };
  /** Records kept parsed beside their JSON text (SQLite): how many, and their texts' length in UTF-16 code units. */
  parsedRecords?: { records: number; chars: number };
}

/**
 * The repositories of one unit of work. The adapters' units build a repository when it is first
 * read, from a getter on the unit's prototype: a spread (`{ ...tx }`) copies only those already
 * read, so code that replaces one repository of a unit derives from it instead
 * (`Object.create(tx, { events: { value: … } })`), as test/helpers/unit-with.ts does.
 */
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
  lifecycles: LifecycleRepository;
  statusHistory: StatusHistoryRepository;
  webhooks: WebhookRepository;
  auditSinks: AuditSinkRepository;
  deliveries: DeliveryRepository;
  observables: ObservableRepository;
  tasks: TaskRepository;
  comments: CommentRepository;
  alerts: AlertRepository;
  customFields: CustomFieldRepository;
  caseTypes: CaseTypeRepository;
}

/** Organizations are the tenants: read by their own id, owned by nobody. */
export interface OrganizationRepository {
  /** Throws conflict when the name is taken. */
  insert(org: Organization): Promise<void>;
  findById(id: string): Promise<Organization | null>;
  /** Replaces name, policy and updatedAt; false when there is no such organization. */
  update(org: Organization): Promise<boolean>;
  /** Existing ids among `ids` (used to check references to other organizations). */
  existingIds(ids: readonly string[]): Promise<string[]>;
  /** Every organization's id after `afterId` ("" for the first), in id order, at most `limit` (jobs that visit each organization). */
  idsAfter(afterId: string, limit: number): Promise<string[]>;
  /** Atomically increments and returns the organization's case counter (1, 2, 3 …). */
  nextCaseNumber(organizationId: string): Promise<number>;
  /**
   * The organization's access version, or null when there is no such organization. Adapters move
   * it in the same transaction as every write that can change what a key or user of the
   * organization may do: any insert, update or delete of a key or a user (a key's lastUsedAt
   * alone excepted) and any change of the organization's own fields (its policy); never for
   * bookkeeping (the case counter, the TLP chain head).
   */
  accessVersion(organizationId: string): Promise<number | null>;
  /**
   * The organization's definitions version as this unit sees it now, or null when there is no
   * such organization. Adapters give it a value never seen before, in the same transaction, on
   * every insert, update or delete of the organization's lifecycles, custom field definitions and
   * case types (a rolled-back value never comes back); nothing else moves it. The in-memory
   * definitions cache (core/definitions/cache.ts) reuses what it read at an equal version.
   *
   * A unit that holds the organization row (its counters: nextCaseNumber, the TLP chain head)
   * gets it with no statement, and no other unit commits a definitions write until it ends;
   * asking never takes that hold. After the unit writes a definition itself, each ask answers
   * the version its own writes left.
   */
  definitionsVersion(organizationId: string): Promise<number | null>;
}

/** What authenticating a key needs, read in one statement (one snapshot): see ApiKeyRepository.findAccessByHash. */
export interface KeyAccess {
  key: StoredApiKey;
  owner: StoredUser;
  organization: Organization;
  /** The organization's access version in the same snapshot as the rest. */
  accessVersion: number;
}

/** Users; `insert` throws conflict when the email is taken (emails are unique across the deployment). */
export interface UserRepository extends RecordRepository<StoredUser, UserFilter> {
  /** Emails are stored lower-case; sign-in looks a user up by email across organizations. */
  findByEmail(email: string): Promise<StoredUser | null>;
}

export interface UserFilter {
  status?: UserStatus[];
  role?: UserRole[];
  email?: string;
}

export interface ApiKeyRepository extends RecordRepository<StoredApiKey, ApiKeyFilter> {
  /**
   * The key with this hash together with its owner, or null. Not scoped by organization: the key
   * is what establishes the organization.
   */
  findByHash(hash: string): Promise<{ key: StoredApiKey; owner: StoredUser } | null>;
  /**
   * `findByHash` plus the key's organization and its access version, all in one statement, so the
   * version is exactly the one the rest was read at. Not scoped by organization, like findByHash.
   */
  findAccessByHash(hash: string): Promise<KeyAccess | null>;
  touchLastUsed(organizationId: string, id: string, at: string): Promise<void>;
  delete(organizationId: string, id: string): Promise<void>;
}

export interface ApiKeyFilter {
  status?: KeyStatus[];
  tier?: KeyTier[];
  userId?: string;
}

/** Cases; `insert` throws conflict when (organizationId, number) is taken. */
export interface CaseRepository extends RecordRepository<Case, CaseFilter>, BatchReads<Case> {
  /**
   * A case of another organization whose `organizations` list names `viewerOrganizationId`, or
   * null. Policy checks are the core's; this only answers "is it shared with me".
   */
  findSharedWith(viewerOrganizationId: string, id: string): Promise<Case | null>;
}

/**
 * The audit events (core/audit): hash-chained per organization, append-only (both adapters'
 * triggers refuse UPDATE, and DELETE of anything not behind the organization's latest signed
 * checkpoint). A writing unit holds the chain's head (beside the TLP log's, on the organization
 * row) from its first append until it ends, so two writers never fork the chain.
 */
export interface AuditRepository {
  /**
   * Chains `event` after the organization's head (core/audit/chain.ts: its seq, prevHash and hash;
   * a group, `items`, takes one position per item) and appends it. Throws conflict when its id is taken.
   */
  append(event: NewAuditEvent): Promise<void>;
  /** `append` for several events in order, all or none. */
  appendMany(events: readonly NewAuditEvent[]): Promise<void>;
  /**
   * Where a group's items go as they are made (a bulk adds each page's as it saves it): stored as
   * `append` would store them, in chunk rows written as they fill (EventRepository.groupItems),
   * so writing them is spread over the operation rather than left to its end. `appendGroup` with
   * the same writer then chains and appends the group's row. A writer never appended leaves rows
   * no reader reaches: a unit that does not append its group must fail.
   */
  groupItems(organizationId: string, id: string): GroupItemsWriter<AuditItem>;
  /**
   * `append` of a group whose items went to `items` (the writer groupItems gave for the event's
   * id and organization). `event.items` is the same list, in the same order: the chain hashes it.
   */
  appendGroup(event: NewAuditEvent & { items: readonly AuditItem[] }, items: GroupItemsWriter<AuditItem>): Promise<void>;
  /** The chain's head: the last position written and its row's hash ({ seq: 0, hash: "" } when empty). */
  head(organizationId: string): Promise<ChainHead>;
  /**
   * Newest first (descending seq), events before `page.beforeSeq`, those `filter` keeps, at most
   * `page.limit`; a group is read as one event per record (core/audit/expand.ts).
   */
  list(organizationId: string, page: AuditPageRequest, filter?: AuditEventFilter): Promise<AuditEvent[]>;
  /**
   * Oldest first (ascending seq): events after `afterSeq` that `filter` keeps, at most `limit`. One
   * range of audit_log_organization_id_last_seq_unique, so a reader that follows the log (an
   * export, a stream) resumes from the last seq it saw at the cost of the first page.
   */
  pageAfter(organizationId: string, afterSeq: number, limit: number, filter?: AuditEventFilter): Promise<AuditEvent[]>;
  /** The stored rows after position `afterSeq`, in chain order, at most `limit` (verification). */
  chain(organizationId: string, afterSeq: number, limit: number): Promise<ChainedAuditRow[]>;
  /**
   * Where verification starts: the organization's latest checkpoint (null: none), and the last
   * position written before audit events were chained (rows up to it are legacy, unhashed: 0 when none).
   */
  chainStart(organizationId: string): Promise<{ checkpoint: AuditCheckpoint | null; legacySeq: number }>;
  /** The last stored row written before `at` (retention's cut), or null. */
  lastRowBefore(organizationId: string, at: string): Promise<ChainedAuditRow | null>;
  /** Retention: stores a signed checkpoint (core/audit/checkpoint.ts) of a row ending exactly at its seq. */
  addCheckpoint(checkpoint: AuditCheckpoint): Promise<void>;
  /**
   * Retention: deletes rows (and their chunk rows) at or behind the organization's latest
   * checkpoint, at most `limit` rows; returns how many (call again until 0). The triggers refuse
   * any other delete.
   */
  prune(organizationId: string, limit: number): Promise<number>;
}

export interface AuditPageRequest {
  limit: number;
  /** Keyset position: only events whose seq is below it. */
  beforeSeq?: number;
}

/** Teams; `insert` throws conflict when the organization already has a team of that name; a list's `name` matches exactly. */
export type TeamRepository = RecordRepository<Team, TeamFilter>;

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
  append(entry: StoredTlpAuditEntry): Promise<void>;
  /**
   * `append` for a run of entries of one organization (a list's views, a bulk page): the first
   * extends the head, each next extends the one before; checked whole before anything is written
   * (conflict otherwise), then inserted in few statements with one move of the head.
   */
  appendMany(entries: readonly StoredTlpAuditEntry[]): Promise<void>;
  /**
   * Newest first, filtered; `actorId` matches the user or the key. `from` inclusive, `to` exclusive.
   * A group entry is read as one entry per item (core/log/groups.ts), each filtered on its own
   * (resourceId, resourceType, action, outcome, maxTlp), and a page may end inside a group: the
   * cursor (`beforeId`) may be an expanded entry's id.
   */
  list(organizationId: string, filter: TlpAuditFilter, page: PageRequest): Promise<TlpAuditEntry[]>;
  /** Chain order (seq ascending) from `afterSeq` + 1, at most `limit` rows as stored (groups whole, with their items): for verification. */
  chain(organizationId: string, afterSeq: number, limit: number): Promise<StoredTlpAuditEntry[]>;
}

export interface SessionRepository {
  insert(session: Session): Promise<void>;
  /** The session with this token hash and its owner; not scoped: the token establishes the organization. */
  findByTokenHash(tokenHash: string): Promise<{ session: Session; owner: StoredUser } | null>;
  delete(organizationId: string, id: string): Promise<void>;
  /** Ends every session of one user of the organization (their password or status changed); no other user's. */
  deleteForUser(organizationId: string, userId: string): Promise<void>;
}

/** Failed sign-in counters by email; not scoped by organization (the email may be nobody's). */
export interface SignInThrottleRepository {
  get(email: string): Promise<SignInThrottle | null>;
  /** Inserts or replaces the counter of `throttle.email`. */
  put(throttle: SignInThrottle): Promise<void>;
  clear(email: string): Promise<void>;
}

/** The transactional outbox: single events and group events (one row for many records: core/log/groups.ts). */
export interface EventRepository extends AppendOnlyLog<DomainEvent | GroupEvent> {
  /**
   * The items of group event `id` (core/events/types.ts GroupEvent), written as they are added;
   * `appendGroup` with the same writer then appends the group's row. A writer never appended
   * leaves rows no reader reaches: a unit that does not append its group must fail.
   */
  groupItems(organizationId: string, id: string): GroupItemsWriter<EventItem>;
  /** Appends `event` as the group of `items` (its `id` and organization are the writer's), as `append` of a GroupEvent would. */
  appendGroup(event: DomainEvent, items: GroupItemsWriter<EventItem>): Promise<void>;
  /** Newest first, each group event expanded into one event per record. */
  list(organizationId: string, page: PageRequest): Promise<DomainEvent[]>;
  /** The event, or one record's event of a group (`<group id>.<position>`). */
  findById(organizationId: string, id: string): Promise<DomainEvent | null>;
  /**
   * Every event the stored row `id` stands for (one per record of a group, or the single event),
   * in order, or null: a reader of many of a group's events (the dispatcher) reads the row once.
   */
  findRow(organizationId: string, id: string): Promise<DomainEvent[] | null>;
}

/**
 * Alerts. "Live" means not soft-deleted. Only `findById` with `includeDeleted`, `update` and a
 * list with `filter.includeDeleted` ever touch a soft-deleted alert (restore, an admin's view).
 */
/**
 * `insert` also throws conflict when a live alert of the organization already has this (source,
 * sourceRef) and TLP (a null sourceRef never clashes; deleted alerts don't count), leaving the unit
 * usable so a caller racing another writer may read the winner with `findBySourceRef`. `update`
 * writes a deleted alert too (restore), and throws that conflict, leaving the unit usable, when it
 * would give a (source, sourceRef, tlp) a second live alert. `list` shows deleted alerts only with
 * `filter.includeDeleted`.
 */
export interface AlertRepository extends RecordRepository<Alert, AlertFilter>, BatchReads<Alert> {
  /** The live alert, or null; a deleted one too with `includeDeleted`. */
  findById(organizationId: string, id: string, options?: { includeDeleted?: boolean }): Promise<Alert | null>;
  /**
   * The organization's live alert with this (source, sourceRef) and the highest TLP at or below
   * `maxTlp`, or null. A reference has at most one live alert per TLP (alerts_source_ref_unique),
   * so alerts above a caller's clearance never answer for it. One seek on that index.
   */
  findBySourceRef(organizationId: string, source: string, sourceRef: string, maxTlp: number): Promise<Alert | null>;
  /**
   * Sets assigneeId and updatedAt on the live alerts among `ids` (a bulk page, at most 1 000) in
   * one statement; returns how many were written.
   */
  assignMany(organizationId: string, ids: readonly string[], assigneeId: string, updatedAt: string): Promise<number>;
  /**
   * Live alerts per source (sources with none are absent), ordered by source. Read from the
   * covering index alerts_organization_id_source_idx alone, never the table.
   */
  countBySource(organizationId: string, filter: AlertSourceCountFilter): Promise<AlertSourceCount[]>;
}

/**
 * Tasks of cases. "Live" means not soft-deleted; no method ever hands back a soft-deleted task.
 * The repository does not check the case's marking except where a method says so.
 */
/** Tasks; `findMany` hands back each task with its case's TLP. */
export interface TaskRepository extends RecordRepository<Task, TaskFilter> {
  /** The live tasks among `ids` (at most 500), each with its case's TLP, in any order; one query. */
  findMany(organizationId: string, ids: readonly string[]): Promise<TaskWithCase[]>;
  /** `update` for many tasks of one organization at once (a bulk page); returns how many were written. */
  updateMany(records: readonly Task[]): Promise<number>;
  /**
   * Sets the same fields on the live tasks among `ids` (a bulk page, at most 1 000) in one
   * statement; returns how many were written. Never customFields: values are indexed per task,
   * so they are written with update or updateMany.
   */
  patchMany(organizationId: string, ids: readonly string[], patch: Partial<Pick<Task, "title" | "description" | "status" | "assigneeId" | "dueDate" | "mandatory" | "tlp" | "updatedAt" | "deletedAt" | "deletedBy">>): Promise<number>;
  /** The highest `order` among the case's live tasks, or null when it has none. */
  maxOrder(organizationId: string, caseId: string): Promise<number | null>;
  /**
   * Whether the case has a live mandatory task in one of `openStatuses` (the statuses of the
   * organization's task lifecycle that are not final; the built-in lifecycle's waiting and
   * in_progress when absent).
   */
  hasOpenMandatory(organizationId: string, caseId: string, openStatuses?: readonly string[]): Promise<boolean>;
}

/**
 * Observables of cases and alerts. "Live" means not soft-deleted; no method ever hands back a
 * soft-deleted observable. Exactly one of `caseId` / `alertId` is set on every record.
 */
/**
 * `insert` also throws conflict when the parent already has a live observable with the same
 * (dataType, data) and TLP (deleted ones don't count), leaving the unit usable so a caller racing
 * another writer may read the winner with `findByValue`. `findById` is null too when the parent
 * alert is soft-deleted, and `list` leaves out observables of a soft-deleted alert.
 */
export interface ObservableRepository extends RecordRepository<Observable, ObservableFilter> {
  /**
   * The parent's live observable with exactly this (dataType, data) (stored spelling) and the
   * highest TLP at or below `maxTlp`, or null: one above a caller's clearance never answers.
   */
  findByValue(organizationId: string, parent: ObservableParent, dataType: string, data: string, maxTlp: number): Promise<Observable | null>;
  /**
   * Every live observable of the alert, oldest first, whether or not the alert itself is
   * soft-deleted (promote and merge read them while changing the alert; the caller has decided the
   * alert may be read).
   */
  listByAlert(organizationId: string, alertId: string): Promise<Observable[]>;
}

/**
 * Comments on cases, alerts and tasks. "Live" means not soft-deleted; no method ever hands back a
 * soft-deleted comment. The repository does not look at the parent: the core checks it first.
 */
export interface CommentRepository extends Omit<RecordRepository<Comment, never>, "list"> {
  /**
   * The parent's live comments, oldest first (ascending id), at most `page.limit`, only those
   * after `page.afterId`: one range scan of comments_organization_id_parent_idx, so a deep page
   * costs what the first one does.
   */
  listByParent(organizationId: string, parent: CommentParent, page: CommentPageRequest): Promise<Comment[]>;
}

/** Webhook subscriptions. Every method is scoped by organization. */
export interface WebhookRepository extends Omit<RecordRepository<StoredWebhook, never>, "list"> {
  /** Removes it with its deliveries and attempts; false if none. */
  delete(organizationId: string, id: string): Promise<boolean>;
  /** Newest first. */
  list(organizationId: string, page: PageRequest): Promise<StoredWebhook[]>;
  /** The organization's active subscriptions (fan-out reads them once per batch of events). */
  active(organizationId: string): Promise<StoredWebhook[]>;
  /** The ids of the organizations with an active subscription, ascending (fan-out moves their audit events: core/webhooks/audit-outbox.ts). */
  activeOrganizations(): Promise<string[]>;
}

/** Organizations' syslog sinks (core/audit-sinks) and how far each delivered. */
export interface AuditSinkRepository extends Omit<RecordRepository<StoredAuditSink, never>, "list"> {
  /** Removes it with its cursor; false if none. */
  delete(organizationId: string, id: string): Promise<boolean>;
  /** Newest first. */
  list(organizationId: string, page: PageRequest): Promise<StoredAuditSink[]>;
  /**
   * Every organization's active sinks, by id, at most `limit` after `afterId` (the delivery host
   * loads them all, page by page: it serves every tenant, and each sink carries its organization).
   */
  activeAfter(afterId: string | null, limit: number): Promise<StoredAuditSink[]>;
  /** The seq last delivered by the sink (0 when it has no cursor). */
  cursor(organizationId: string, sinkId: string): Promise<number>;
  /**
   * `cursor`, in a writing unit, holding the cursor's row until the unit ends: a second unit moving
   * the same cursor waits, then reads the value the first committed (a reader that writes what
   * follows the cursor, and moves it, in one unit never writes anything twice).
   */
  heldCursor(organizationId: string, sinkId: string): Promise<number>;
  /** Stores the sink's cursor, created or moved. */
  setCursor(organizationId: string, sinkId: string, seq: number, at: string): Promise<void>;
  /**
   * The delivery lease of a sink with a cursor: taken (or renewed) for `holder` until `until` when
   * no one holds it, its holder is `holder`, or it ran out before `now`. True when `holder` holds it.
   * Delivery hosts sharing a database run each sink on the one host holding its lease.
   */
  claimLease(organizationId: string, sinkId: string, holder: string, now: string, until: string): Promise<boolean>;
  /** Gives the lease up when `holder` holds it, so another host takes the sink over at once. */
  releaseLease(organizationId: string, sinkId: string, holder: string): Promise<void>;
  /** Moves the cursor if `holder` still holds the lease at `at`; false (nothing moved) otherwise. */
  setLeasedCursor(organizationId: string, sinkId: string, holder: string, seq: number, at: string): Promise<boolean>;
}

/**
 * The delivery side of the outbox. Claims and the retention purge are the only methods not scoped
 * by organization: the dispatcher serves every tenant, and each claimed row carries its
 * organization id, which every later call uses. On PostgreSQL claims use FOR UPDATE SKIP LOCKED, so dispatchers on several
 * hosts never take the same row; a lease (`leaseUntil`) lets another dispatcher take over work a
 * crashed one held.
 */
export interface DeliveryRepository {
  /**
   * Takes up to `limit` stored events not yet fanned out (oldest first) and marks them fanned out
   * at `now`, in the caller's unit of work: commit together with the deliveries created for them.
   * A group event counts as one and comes back expanded: one event per record, each with its
   * own id (core/log/groups.ts) — unless `expandGroup` answers false for its organization and
   * name (nobody there subscribes to it): it is then claimed and left out, never decoded, so a
   * 100 000-record bulk nobody listens to costs the dispatcher one row.
   */
  claimEvents(limit: number, now: string, expandGroup?: (organizationId: string, name: string) => Promise<boolean>): Promise<DomainEvent[]>;
  /** Inserts deliveries; a second delivery for the same (webhookId, eventId) is ignored. */
  insertMany(deliveries: readonly Delivery[]): Promise<void>;
  /**
   * Takes up to `limit` pending deliveries due at `now` (nextAttemptAt ≤ now) whose lease is free
   * or expired, oldest due first, and leases them until `leaseUntil`.
   */
  claimDue(limit: number, now: string, leaseUntil: string): Promise<Delivery[]>;
  /** Replaces the stored delivery (same id and organization); false if none. */
  update(delivery: Delivery): Promise<boolean>;
  findById(organizationId: string, id: string): Promise<Delivery | null>;
  /** A webhook's deliveries, newest first. */
  list(organizationId: string, webhookId: string, filter: DeliveryFilter, page: PageRequest): Promise<Delivery[]>;
  insertAttempt(attempt: DeliveryAttempt): Promise<void>;
  /** The attempts of these deliveries, in attempt order. */
  attemptsOf(organizationId: string, deliveryIds: readonly string[]): Promise<DeliveryAttempt[]>;
  /** Deletes finished deliveries (and their attempts) completed before `before`; returns how many. */
  purgeCompletedBefore(before: string, limit: number): Promise<number>;
  /**
   * The dispatcher's queues, across every organization, for monitoring: deliveries still pending
   * (due or waiting for a retry) and when the oldest event not yet fanned out occurred (null when
   * every event is). Read from the queues' own indexes.
   */
  backlog(): Promise<DeliveryBacklog>;
}

export interface DeliveryBacklog {
  pendingDeliveries: number;
  oldestUndispatchedEventAt: string | null;
}

/** Published lifecycle versions (core/lifecycles): append-only, one row per version. */
export interface LifecycleRepository {
  /** Throws conflict when the (organization, entity, key, version) is taken: someone published meanwhile. */
  insert(record: StoredLifecycle): Promise<void>;
  /** The newest version of the organization's lifecycle `key` of `entity`, or null (none published: the built-in default for `default`). */
  current(organizationId: string, entity: LifecycleEntity, key: string): Promise<StoredLifecycle | null>;
  /** The versions of one lifecycle, newest first. */
  versions(organizationId: string, entity: LifecycleEntity, key: string, page: PageRequest): Promise<StoredLifecycle[]>;
  /** The newest version of every lifecycle of `entity` the organization published (default and named), by key. */
  currentAll(organizationId: string, entity: LifecycleEntity): Promise<StoredLifecycle[]>;
}

/** Status changes of records (core/history): append-only, one row per change of one record. */
export interface StatusHistoryRepository extends AppendOnlyLog<StatusChange> {
  /** The record's changes oldest first (ascending id), after `page.afterId`: one range of its index. */
  listByRecord(organizationId: string, entity: LifecycleEntity, recordId: string, page: { limit: number; afterId?: string }): Promise<StatusChange[]>;
}

/** An organization's custom field definitions. */
export interface CustomFieldRepository extends RecordRepository<CustomFieldDefinition, CustomFieldFilter> {
  findByKey(organizationId: string, key: string): Promise<CustomFieldDefinition | null>;
  /** Every definition of the organization (at most 500), oldest first: what a record write checks against. */
  listAll(organizationId: string): Promise<CustomFieldDefinition[]>;
}

/** An organization's case types. */
export interface CaseTypeRepository extends RecordRepository<CaseType, CaseTypeFilter> {
  /** The type a case's typeValue names, archived or not. */
  findByKey(organizationId: string, key: string): Promise<CaseType | null>;
  /** Whether the organization defines any case type (then typeValue must name one). */
  any(organizationId: string): Promise<boolean>;
  delete(organizationId: string, id: string): Promise<boolean>;
}
