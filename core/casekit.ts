import { createAccountService } from "./account/service.js";
import { createAccessCache } from "./access/access-cache.js";
import { createDefinitionsCache } from "./definitions/cache.js";
import type { PrincipalClaims } from "./access/resolve-principal.js";
import { resolvePrincipal } from "./access/resolve-principal.js";
import { hostIdentitySchema } from "./access/claims.js";
import { parse } from "./validation.js";
import type { Principal } from "./access/principal.js";
import { createCaseService } from "./cases/service.js";
import { createLifecycleService } from "./lifecycles/service.js";
import { createConfigurationService } from "./configuration/service.js";
import { createRecordTransitions } from "./lifecycles/record-transitions.js";
import { createCaseTypeService } from "./case-types/service.js";
import { createCustomFieldService } from "./custom-fields/service.js";
import { createObservableService } from "./observables/service.js";
import { createTaskService } from "./tasks/service.js";
import { createAlertService } from "./alerts/service.js";
import { createCommentService } from "./comments/service.js";
import type { CaseKitConfig, CaseKitDeps } from "./context.js";
import { CaseKitError } from "./errors.js";
import { checkedBulkMaxRows } from "./bulk/limit.js";
import { createHealthService } from "./health/service.js";
import { createKeyAuthenticator } from "./keys/authenticate.js";
import { createKeyService } from "./keys/service.js";
import { createOrganizationService } from "./organizations/service.js";
import type { RateLimitConfig } from "./limits/service.js";
import { createRateLimiter } from "./limits/service.js";
import type { Clock } from "./ports/clock.js";
import { systemClock } from "./ports/clock.js";
import type { IdGenerator } from "./ports/ids.js";
import type { PasswordHasher } from "./ports/password-hasher.js";
import { scryptPasswordHasher } from "./users/passwords.js";
import { createIdGenerator } from "./ports/ids.js";
import type { Storage } from "./ports/storage.js";
import { createSetupService } from "./setup/service.js";
import { createTeamService } from "./teams/service.js";
import { createTlpService } from "./tlp/service.js";
import { createAuditService } from "./audit/service.js";
import { createRefusalLog } from "./audit/refusals.js";
import { createAuditSinkService } from "./audit-sinks/service.js";
import { createAuditSinkDelivery } from "./audit-sinks/delivery.js";
import { createUserService } from "./users/service.js";
import { createWebhookService } from "./webhooks/service.js";
import type { DispatcherOptions } from "./webhooks/dispatcher.js";
import { createDispatcher } from "./webhooks/dispatcher.js";
import { createSealer } from "./webhooks/seal.js";

export interface CaseKitOptions {
  storage: Storage;
  clock?: Clock;
  ids?: IdGenerator;
  /** How passwords are hashed and checked; scrypt (N=2^15) by default. */
  passwordHasher?: PasswordHasher;
  config?: Partial<CaseKitConfig>;
  /** Rate limits: the store (memory by default), deployment figures, failure mode. */
  rateLimits?: Partial<RateLimitConfig>;
  /**
   * Keys the in-memory access cache holds at most (least recently used dropped first; default
   * 10 000, 0 to read every key from storage on every request). Whatever the size, every request
   * checks its organization's access version, so a cached key is never used past a change.
   */
  accessCacheEntries?: number;
  /**
   * Organizations whose lifecycles, custom field definitions and case types the in-memory
   * definitions cache holds at most (least recently used dropped first; default 1 000, 0 to read
   * them from storage every time). Whatever the size, every read checks the organization's
   * definitions version, so a cached definition is never used past a change.
   */
  definitionsCacheEntries?: number;
}

/** The one way in: wires the ports into the services. Every service call takes a principal. */
export function createCaseKit(options: CaseKitOptions) {
  const clock = options.clock ?? systemClock;
  const deps: CaseKitDeps = {
    storage: options.storage,
    definitions: createDefinitionsCache({ maxEntries: options.definitionsCacheEntries }),
    clock,
    ids: options.ids ?? createIdGenerator(clock),
    passwords: options.passwordHasher ?? scryptPasswordHasher,
    config: {
      keyHashSecret: options.config?.keyHashSecret ?? "casekit-default-key-hash-secret",
      keyEnvironment: options.config?.keyEnvironment ?? "live",
      webhookAllowlist: options.config?.webhookAllowlist,
      bulkMaxRows: checkedBulkMaxRows(options.config?.bulkMaxRows),
      ...(options.config?.auditRetentionDays ? { auditRetentionDays: options.config.auditRetentionDays } : {}),
    },
  };

  /**
   * Bring your own identity: the host vouches for a user of an organization, and the same rule as
   * for keys applies (the user must exist and be active; role caps scopes; clearance is capped).
   * The identity is checked with the API's own schemas first: a malformed one (an id of the wrong
   * kind, a clearance that is not an integer 0–4, an unknown tier or scope) is validation_failed.
   */
  async function principalFor(identity: { organizationId: string; userId: string } & Omit<PrincipalClaims, "authenticatedBy" | "keyId">): Promise<Principal> {
    const { organizationId, userId, ...claims } = parse(hostIdentitySchema, identity);
    const user = await deps.storage.read((tx) => tx.users.findById(organizationId, userId));
    if (!user) throw new CaseKitError("owner_inactive", "No such user in that organization");
    return resolvePrincipal(user, { ...claims, authenticatedBy: "host" });
  }

  // One cache for the key check and the limiter: a key's request reads its organization's
  // access version once (core/access/access-cache.ts).
  const access = createAccessCache(deps, { maxEntries: options.accessCacheEntries });
  const limits = createRateLimiter(deps, options.rateLimits, access);
  // Refusals (failed authentications, denials) are audited, aggregated so a flood costs bounded rows.
  const refusals = createRefusalLog(deps);
  const cases = createCaseService(deps);
  const tasks = createTaskService(deps);
  const alerts = createAlertService(deps);

  return {
    deps,
    limits,
    storage: deps.storage,
    clock,
    access,
    authenticateKey: createKeyAuthenticator(deps, access, refusals),
    principalFor,
    account: createAccountService(deps, refusals),
    /**
     * The refusal log (core/audit/refusals.ts): hosts note the refusals they decide (a missing
     * scope, a TLP denial) and call `flush()` about once a window (`refusalWindowMs`) and at shutdown.
     */
    refusals,
    cases,
    caseTypes: createCaseTypeService(deps),
    customFields: createCustomFieldService(deps),
    observables: createObservableService(deps),
    tasks,
    alerts,
    /** Each organization's lifecycles of cases, alerts and tasks (core/lifecycles). */
    lifecycles: createLifecycleService(deps),
    /** The organization's definitions as one document (GET/PUT /configuration). */
    configuration: createConfigurationService(deps),
    /** A record's transitions and status history (GET/POST …/{id}/transitions, GET …/{id}/history). */
    transitions: createRecordTransitions(deps, { cases, alerts, tasks }),
    comments: createCommentService(deps),
    keys: createKeyService(deps),
    users: createUserService(deps),
    teams: createTeamService(deps),
    organizations: createOrganizationService(deps),
    tlp: createTlpService(deps),
    /** The audit events: read, verified, pruned (core/audit). */
    audit: createAuditService(deps),
    /** Organizations' syslog sinks of the audit events (core/audit-sinks); the host delivers them. */
    auditSinks: createAuditSinkService(deps),
    /** What a host running organizations' sinks reads and writes (server/audit-delivery/sink-host.ts). */
    auditSinkDelivery: createAuditSinkDelivery(deps),
    setup: createSetupService(deps),
    health: createHealthService(deps),
    webhooks: createWebhookService(deps),
    /**
     * A webhook dispatcher over this kit's storage and clock. The host supplies the transport
     * (adapters/outbound/node-transport.ts, with the SSRF allowlist) and runs it in a loop.
     */
    createDispatcher(options: Omit<DispatcherOptions, "unseal">) {
      return createDispatcher(deps, { ...options, unseal: createSealer(deps.config.keyHashSecret).unseal });
    },
  };
}

export type CaseKit = ReturnType<typeof createCaseKit>;
