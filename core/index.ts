// casekit core: the public API. Named exports only.
export { createCaseKit } from "./casekit.js";
export type { CaseKit, CaseKitOptions } from "./casekit.js";
export type { CaseKitConfig, CaseKitDeps } from "./context.js";

export { CaseKitError, errorTitles, invalidField, isCaseKitError } from "./errors.js";
export type { ErrorCode, FieldError, RateLimitRefusal } from "./errors.js";

export { ManualClock, systemClock } from "./ports/clock.js";
export type { Clock } from "./ports/clock.js";
export { createIdGenerator } from "./ports/ids.js";
export type { IdGenerator, IdPrefix } from "./ports/ids.js";
export type { PasswordHasher } from "./ports/password-hasher.js";
export type * from "./ports/storage.js";

export { requireClearance, requireScope } from "./access/principal.js";
export type { Principal, RequestOrigin } from "./access/principal.js";
export type { AccessCache } from "./access/access-cache.js";
export { defaultAccessCacheEntries } from "./access/access-cache.js";
export { adminScopes, allScopes, dataScopes, isScope, scopesOfRole } from "./access/scopes.js";
export type { Scope } from "./access/scopes.js";

export type { Organization } from "./organizations/types.js";
export { userRoles, userStatuses } from "./users/types.js";
export type { StoredUser, User, UserRole, UserStatus } from "./users/types.js";
export { keyStatuses, keyTiers } from "./keys/types.js";
export type { ApiKey, KeyStatus, KeyTier, StoredApiKey } from "./keys/types.js";
export { generateKeySecret, hashKeySecret, isWellFormedKeySecret } from "./keys/secret.js";

export { caseStatuses, caseTransitions, canTransition, initialCaseStatuses } from "./cases/lifecycle.js";
export type { CaseStatus } from "./cases/lifecycle.js";
export { caseCreateSchema, caseListQuerySchema, caseListSchema, caseSchema, caseUpdateSchema } from "./cases/schema.js";
export type { CaseCreateInput, CaseListQuery, CaseUpdateInput } from "./cases/schema.js";
export type { Case, CaseFilter, CaseTag } from "./cases/types.js";
export type { CaseService } from "./cases/service.js";
export { caseTypeCreateSchema, caseTypeListQuerySchema, caseTypeListSchema, caseTypeSchema, caseTypeUpdateSchema } from "./case-types/schema.js";
export { configurationChangesSchema, configurationDocumentSchema, configurationSchema } from "./configuration/schema.js";
export type { Configuration, ConfigurationChanges, ConfigurationDocument } from "./configuration/schema.js";
export type { CaseType } from "./case-types/types.js";
export type { CaseTypeService } from "./case-types/service.js";
export { customFieldCreateSchema, customFieldJsonSchemaSchema, customFieldListQuerySchema, customFieldListSchema, customFieldSchema, customFieldSchemaQuerySchema, customFieldUpdateSchema } from "./custom-fields/schema.js";
export { customFieldScopes, customFieldTypes } from "./custom-fields/types.js";
export type { CustomFieldDefinition, CustomFieldOption, CustomFieldScope, CustomFieldType } from "./custom-fields/types.js";
export type { CustomFieldService } from "./custom-fields/service.js";
export { unmetFieldRequirements } from "./custom-fields/requirements.js";
export type { RequirementMoment, UnmetFieldRequirement } from "./custom-fields/requirements.js";
export { redactCustomFields } from "./custom-fields/redact.js";

export type { AuditActor, AuditChange, AuditCheckpoint, AuditEvent, AuditEventFilter, AuditItem, AuditOutcome, AuditTarget, ChainedAuditRow, NewAuditEvent } from "./audit/types.js";
export type { DomainEvent, EventItem, GroupEvent } from "./events/types.js";
export { expandEvent, expandTlpAudit, itemId, splitItemId } from "./log/groups.js";
export { healthSchema } from "./health/service.js";
export type { Health } from "./health/service.js";
export type { InitResult } from "./setup/service.js";
export { version } from "./version.js";

export { resolvePrincipal } from "./access/resolve-principal.js";
export { hostIdentitySchema, principalClaimsSchema } from "./access/claims.js";
export { isTlpLevel, visibleUpTo, withinClearance } from "./access/clearance.js";
export { requireHolds, rightsOfUser, tierAtMost } from "./access/grants.js";
export type { Rights } from "./access/grants.js";
export { requireUserChange } from "./access/user-changes.js";
export type { UserChange } from "./access/user-changes.js";
export type { PrincipalClaims } from "./access/resolve-principal.js";

export { apiKeyCreateSchema, apiKeyCreatedSchema, apiKeyListQuerySchema, apiKeyListSchema, apiKeySchema } from "./keys/schema.js";
export type { KeyService, KeyStatusAction } from "./keys/service.js";
export { keyGrantOptionsSchema } from "./keys/grant-options.js";
export type { KeyGrantOptions } from "./keys/grant-options.js";
export { userCreateSchema, userCreatedSchema, userListQuerySchema, userListSchema, userSchema, userUpdateSchema } from "./users/schema.js";
export type { UserService } from "./users/service.js";
export { teamCreateSchema, teamListQuerySchema, teamListSchema, teamSchema, teamUpdateSchema } from "./teams/schema.js";
export type { TeamService } from "./teams/service.js";
export type { Team, TeamFilter } from "./teams/types.js";
export { defaultOrganizationPolicy, organizationPolicySchema, organizationPolicyUpdateSchema } from "./organizations/policy.js";
export type { OrganizationPolicy } from "./organizations/policy.js";
export { signInSchema, sessionLifetimeMs } from "./account/service.js";
export { accountSlowDownAfter, accountSlowDownMs, signInFailureLimit, signInWindowMs, trustedAddressMs } from "./account/sign-in-throttle.js";
export type { AccountService, SignedIn } from "./account/service.js";
export type { Session, SignInThrottle } from "./account/types.js";

export { papLevels, tlpAuditListThreshold, tlpLevels } from "./tlp/levels.js";
export { tlpActions, tlpResourceTypes } from "./tlp/types.js";
export type { StoredTlpAuditEntry, TlpAction, TlpAuditEntry, TlpAuditFilter, TlpAuditGroupEntry, TlpAuditItem, TlpOutcome, TlpResourceType } from "./tlp/types.js";
export { hashTlpEntry, verifyTlpChain } from "./tlp/chain.js";
export type { ChainVerdict } from "./tlp/chain.js";
export { auditExportQuerySchema, auditStreamQuerySchema } from "./audit/follow.js";
export { auditChainVerdictSchema, auditEventListSchema, auditEventQuerySchema, auditEventSchema, caseAuditEventQuerySchema } from "./audit/service.js";
export type { AuditChainVerdict } from "./audit/service.js";
export { auditActorTypes, auditOutcomes } from "./audit/types.js";
export { recordAuditEvent, recordDenial } from "./audit/record-event.js";
export { createRefusalLog, refusalKindsPerWindow, refusalWindowMs } from "./audit/refusals.js";
export type { Refusal, RefusalLog } from "./audit/refusals.js";
export { auditSinkCreateSchema, auditSinkListQuerySchema, auditSinkListSchema, auditSinkSchema, auditSinkUpdateSchema } from "./audit-sinks/schema.js";
export type { AuditSink } from "./audit-sinks/schema.js";
export { checkSyslogSinkConfig, defaultEnterpriseId, defaultSyslogFacility, parseSyslogTarget, syslogSinkConfigSchema } from "./audit-sinks/config.js";
export type { SyslogSinkConfig, SyslogSinkConfigDocument, SyslogSinkConfigInput, SyslogTarget } from "./audit-sinks/config.js";
export type { AuditSinkCursor, AuditSinkStatus, StoredAuditSink } from "./audit-sinks/types.js";
export { auditSinkStatuses } from "./audit-sinks/types.js";
export type { AuditSinkService } from "./audit-sinks/service.js";
export type { AuditNote } from "./audit/record-event.js";
export { tlpAuditEntrySchema, tlpAuditListSchema, tlpAuditQuerySchema, tlpConstantsSchema } from "./tlp/service.js";

export { effectiveLimits, rateLimitFloors, tierLimits, unlimitedCeiling } from "./limits/tiers.js";
export { rateLimitOverridesSchema } from "./limits/schema.js";
export type { RateLimitOverrides, RateLimits } from "./limits/tiers.js";
export { decide as decideRateLimit } from "./limits/limiter.js";
export type { DecideOptions, LimitDecision, LimiterState } from "./limits/limiter.js";
export { defaultSourceFailureLimits, rowCost, rowsPerCostUnit } from "./limits/service.js";
export type { EarlySpend, RateLimitConfig, RateLimiter } from "./limits/service.js";
export { createMemoryRateLimitStore } from "./ports/rate-limit-store.js";
export type { RateLimitStore } from "./ports/rate-limit-store.js";

export { builtInDataTypes, dataTypePattern, normalizeData, searchSpellings } from "./observables/data-types.js";
export type { BuiltInDataType, Normalized } from "./observables/data-types.js";
export {
  observableCreateSchema,
  observableCreatedSchema,
  observableListQuerySchema,
  observableListSchema,
  observableParentListQuerySchema,
  observableSchema,
  observableUpdateSchema,
} from "./observables/schema.js";
export type { ObservableCreateInput, ObservableListQuery, ObservableUpdateInput } from "./observables/schema.js";
export type { Observable, ObservableFilter, ObservableParent, ObservableTag } from "./observables/types.js";
export type { ObservableService } from "./observables/service.js";
export { copyObservablesToCase } from "./observables/copy.js";

export { alertStatuses, alertTransitions, canTransitionAlert, settableAlertStatuses } from "./alerts/lifecycle.js";
export type { AlertStatus } from "./alerts/lifecycle.js";
export {
  alertBulkAssignSchema,
  alertBulkAssignedSchema,
  alertCreateSchema,
  alertCreatedSchema,
  alertFiltersSchema,
  alertImportResultSchema,
  alertListQuerySchema,
  alertListSchema,
  alertMergeSchema,
  alertPromoteSchema,
  alertSchema,
  alertSourceMetricQuerySchema,
  alertSourceMetricSchema,
  alertUpdateSchema,
} from "./alerts/schema.js";
export type { AlertBulkAssignInput, AlertCreateInput, AlertFilters, AlertListQuery, AlertUpdateInput } from "./alerts/schema.js";
export type { Alert, AlertFilter, AlertSourceCount, AlertSourceCountFilter, AlertTag } from "./alerts/types.js";
export type { AlertService } from "./alerts/service.js";
export type { AlertImport } from "./alerts/import.js";
export type { CopyObservablesResult } from "./observables/copy.js";

export { bulkRequestSchema, bulkResultSchema, maxBulkIds, selectionOf } from "./bulk/schema.js";
export type { BulkSelection } from "./bulk/schema.js";
export { runBulk } from "./bulk/run.js";
export type { BulkCandidate, BulkPlan, BulkResult, BulkSkip, BulkSkipped } from "./bulk/types.js";

export { canTransitionTask, initialTaskStatuses, openTaskStatuses, taskStatuses, taskTransitions } from "./tasks/lifecycle.js";
export type { TaskStatus } from "./tasks/lifecycle.js";
export {
  taskBulkDeleteSchema,
  taskBulkDeletedSchema,
  taskBulkFiltersSchema,
  taskBulkUpdateSchema,
  taskBulkUpdatedSchema,
  taskCaseListQuerySchema,
  taskCreateSchema,
  taskListQuerySchema,
  taskListSchema,
  taskSchema,
  taskUpdateSchema,
} from "./tasks/schema.js";
export type { TaskBulkFilters, TaskCreateInput, TaskListQuery, TaskUpdateInput } from "./tasks/schema.js";
export type { Task, TaskFilter, TaskWithCase } from "./tasks/types.js";
export type { TaskService } from "./tasks/service.js";

export { commentCreateSchema, commentListQuerySchema, commentListSchema, commentSchema, commentUpdateSchema, maxCommentLength } from "./comments/schema.js";
export type { CommentCreateInput, CommentUpdateInput } from "./comments/schema.js";
export { commentParentKinds } from "./comments/types.js";
export type { Comment, CommentPageRequest, CommentParent, CommentParentKind } from "./comments/types.js";
export { commentParentKindsServed, scopeFor as commentScopeFor, scopesFor as commentScopesFor } from "./comments/parent.js";
export type { CommentService, CommentView } from "./comments/service.js";

export {
  webhookAuthTypes,
  webhookCreateSchema,
  webhookCreatedSchema,
  webhookListSchema,
  webhookMethods,
  webhookSchema,
  webhookStatuses,
  webhookUpdateSchema,
} from "./webhooks/schema.js";
export type { WebhookCreateInput, WebhookUpdateInput } from "./webhooks/schema.js";
export { deliveryListQuerySchema, deliveryListSchema, deliverySchema, webhookListQuerySchema } from "./webhooks/api-schema.js";
export type { DeliveryView } from "./webhooks/api-schema.js";
export type { Webhook } from "./webhooks/views.js";
export { secretRotationGraceMs } from "./webhooks/service.js";
export type { WebhookService } from "./webhooks/service.js";
export type { AttemptErrorClass, Delivery, DeliveryAttempt, DeliveryFilter, DeliveryStatus, StoredWebhook } from "./webhooks/types.js";
export { createSealer } from "./webhooks/seal.js";
export type { Sealer } from "./webhooks/seal.js";
export { checkWebhookUrl, parseWebhookAllowlist } from "./webhooks/ssrf.js";
export type { Dispatcher, DispatcherOptions } from "./webhooks/dispatcher.js";
export { OutboundError } from "./ports/outbound.js";
export type { OutboundErrorClass, OutboundRequest, OutboundResponse, OutboundTransport } from "./ports/outbound.js";
export type { WebhookAllowlist } from "./webhooks/ssrf.js";
export { verifySignature } from "./webhooks/signature.js";

export { defaultLifecycles, importedAlertStatus } from "./lifecycles/defaults.js";
export { defaultLifecycleKey, lifecycleEntities, statusCategories, transitionRoles } from "./lifecycles/types.js";
export type { Lifecycle, LifecycleDefinition, LifecycleEntity, LifecycleStatus, LifecycleTransition, StatusCategory, StoredLifecycle, TransitionRole } from "./lifecycles/types.js";
export type { TransitionOption } from "./lifecycles/engine.js";
export type { LifecycleView } from "./lifecycles/service.js";
export type { StatusChange } from "./history/types.js";
export {
  caseLifecycleListSchema,
  lifecyclePublishSchema,
  lifecycleSchema,
  lifecycleVersionListSchema,
  lifecycleVersionQuerySchema,
  statusHistoryQuerySchema,
  statusHistorySchema,
  transitionListSchema,
} from "./lifecycles/schema.js";
export { alertTransitionRequestSchema, caseTransitionRequestSchema, taskTransitionRequestSchema } from "./lifecycles/transition-schemas.js";
