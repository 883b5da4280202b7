/**
 * Record factories for the storage conformance suite: fixed timestamps, deterministic ids
 * (`<prefix>_` + 26 characters, strictly increasing in creation order), unique names and emails.
 * Every record is complete: optional values are `null`, never `undefined`.
 */
import type { Case, NewAuditEvent, DomainEvent, IdGenerator, Organization, StoredApiKey, StoredUser, StoredWebhook } from "../../core/index.js";
import { createIdGenerator, ManualClock } from "../../core/index.js";
import type { Session, SignInThrottle } from "../../core/account/types.js";
import { defaultOrganizationPolicy } from "../../core/organizations/policy.js";
import type { Team } from "../../core/teams/types.js";
import { hashTlpEntry } from "../../core/tlp/chain.js";
import type { TlpAuditEntry } from "../../core/tlp/types.js";
import { caseRecord } from "./case-record.js";

/** A chain head as TlpAuditRepository.head returns it. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** The fields of a TLP audit entry a test may choose; the chain fields come from the head. */
export type TlpEntryOverrides = Partial<Omit<TlpAuditEntry, "organizationId" | "seq" | "prevHash" | "hash">>;

export const fixedTime = "2026-02-01T09:30:00.000Z";

export interface Fixtures {
  clock: ManualClock;
  ids: IdGenerator;
  /** Now, as ISO text (the clock moves only when a test moves it). */
  at(): string;
  organization(overrides?: Partial<Organization>): Organization;
  user(organizationId: string, overrides?: Partial<StoredUser>): StoredUser;
  apiKey(owner: StoredUser, overrides?: Partial<StoredApiKey>): StoredApiKey;
  caseRecord(organizationId: string, overrides?: Partial<Case>): Case;
  /** An audit event to append (the storage chains it). */
  auditEntry(organizationId: string, overrides?: Partial<NewAuditEvent>): NewAuditEvent;
  event(organizationId: string, overrides?: Partial<DomainEvent>): DomainEvent;
  /** An active subscription to `case.*` (while one is active, the organization's events wait for the dispatcher's claim). */
  webhook(organizationId: string, overrides?: Partial<StoredWebhook>): StoredWebhook;
  team(organizationId: string, overrides?: Partial<Team>): Team;
  /** The entry that extends `head` (seq + 1, prevHash = head.hash), hashed with the core's hashTlpEntry. */
  tlpEntry(organizationId: string, head: ChainHead, overrides?: TlpEntryOverrides): TlpAuditEntry;
  session(owner: StoredUser, overrides?: Partial<Session>): Session;
  throttle(email: string, overrides?: Partial<SignInThrottle>): SignInThrottle;
}

/** A deterministic byte source, so a run's ids are the same every time. */
function seededBytes(seed: number): (n: number) => Uint8Array {
  let state = seed >>> 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      out[i] = state >>> 24;
    }
    return out;
  };
}

export function createFixtures(start: string = fixedTime): Fixtures {
  const clock = new ManualClock(start);
  const ids = createIdGenerator(clock, seededBytes(42));
  let sequence = 0;
  const at = () => clock.now().toISOString();
  const next = () => ++sequence;
  const caseNumbers = new Map<string, number>();

  return {
    clock,
    ids,
    at,

    organization(overrides = {}) {
      const n = next();
      return {
        id: ids.next("org"),
        name: `Organization ${n}`,
        policy: structuredClone(defaultOrganizationPolicy),
        createdAt: at(),
        updatedAt: at(),
        ...overrides,
      };
    },

    user(organizationId, overrides = {}) {
      const n = next();
      return {
        id: ids.next("user"),
        organizationId,
        email: `user${n}@example.test`,
        name: `User ${n}`,
        role: "analyst",
        status: "active",
        tlpClearance: 2,
        passwordHash: null,
        createdAt: at(),
        updatedAt: at(),
        createdBy: null,
        ...overrides,
      };
    },

    apiKey(owner, overrides = {}) {
      const n = next();
      return {
        id: ids.next("key"),
        organizationId: owner.organizationId,
        userId: owner.id,
        name: `Key ${n}`,
        description: null,
        tier: "standard",
        scopes: ["cases:read", "cases:write"],
        tlpClearance: 2,
        status: "active",
        expiresAt: null,
        lastUsedAt: null,
        start: `ck_test_${String(n).padStart(4, "0")}`,
        hash: `hash-${String(n).padStart(8, "0")}-${"0".repeat(48)}`,
        createdAt: at(),
        updatedAt: at(),
        createdBy: owner.id,
        ...overrides,
      };
    },

    caseRecord(organizationId, overrides = {}) {
      const number = (caseNumbers.get(organizationId) ?? 0) + 1;
      caseNumbers.set(organizationId, number);
      return caseRecord(ids.next("case"), organizationId, number, at(), overrides);
    },

    auditEntry(organizationId, overrides = {}) {
      return {
        id: ids.next("aud"),
        organizationId,
        at: at(),
        actor: { type: "user", id: null },
        requestId: null,
        ip: null,
        userAgent: null,
        action: "case.created",
        target: { type: "case", id: ids.next("case") },
        outcome: "success",
        changes: [],
        bulkRequestId: null,
        tlp: null,
        ...overrides,
      };
    },

    event(organizationId, overrides = {}) {
      return {
        id: ids.next("evt"),
        organizationId,
        name: "case.created",
        resourceType: "case",
        resourceId: ids.next("case"),
        payload: {},
        tlp: null,
        bulkRequestId: null,
        occurredAt: at(),
        ...overrides,
      };
    },

    webhook(organizationId, overrides = {}) {
      return {
        id: ids.next("whk"),
        organizationId,
        name: "SIEM forwarder",
        url: "https://hooks.example.com/casekit",
        events: ["case.*"],
        description: null,
        method: "POST",
        authType: "none",
        authConfig: {},
        headers: {},
        filters: {},
        retryDelayMs: 1000,
        timeoutMs: 30_000,
        maxRetries: 3,
        tags: [],
        environment: "production",
        status: "active",
        disabledReason: null,
        secret: "v1.sealed-secret",
        secretStart: "whsec_abcd",
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: at(),
        updatedAt: at(),
        createdBy: null,
        grant: { keyId: null, tlpClearance: 2, scopes: ["cases:read", "webhooks:read"] },
        ...overrides,
      };
    },

    team(organizationId, overrides = {}) {
      const n = next();
      return {
        id: ids.next("team"),
        organizationId,
        name: `Team ${n}`,
        description: null,
        function: null,
        tier: null,
        escalationTeamId: null,
        email: null,
        slackChannel: null,
        teamsChannel: null,
        timezone: null,
        createdAt: at(),
        updatedAt: at(),
        createdBy: null,
        ...overrides,
      };
    },

    tlpEntry(organizationId, head, overrides = {}) {
      const unhashed: Omit<TlpAuditEntry, "hash"> = {
        id: ids.next("tlpa"),
        actorUserId: null,
        actorKeyId: null,
        resourceType: "case",
        resourceId: ids.next("case"),
        action: "view",
        tlpBefore: 2,
        tlpAfter: 2,
        outcome: "allowed",
        ip: null,
        userAgent: null,
        requestId: null,
        at: at(),
        ...overrides,
        organizationId,
        seq: head.seq + 1,
        prevHash: head.hash,
      };
      return { ...unhashed, hash: hashTlpEntry(unhashed) };
    },

    session(owner, overrides = {}) {
      const n = next();
      return {
        id: ids.next("ses"),
        organizationId: owner.organizationId,
        userId: owner.id,
        tokenHash: `token-${String(n).padStart(8, "0")}-${"0".repeat(48)}`,
        csrfHash: `csrf-${String(n).padStart(8, "0")}-${"0".repeat(49)}`,
        createdAt: at(),
        expiresAt: new Date(clock.now().getTime() + 12 * 3_600_000).toISOString(),
        ...overrides,
      };
    },

    throttle(email, overrides = {}) {
      return { email, failures: 1, windowStartedAt: at(), blockedUntil: null, ...overrides };
    },
  };
}

/** Fails with the path of the first `undefined` found anywhere in `value`. */
export function findUndefined(value: unknown, path = "$"): string | null {
  if (value === undefined) return path;
  if (value === null || typeof value !== "object") return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = findUndefined(inner, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/** A Fisher–Yates shuffle with a fixed seed, so insertion order never matches id order. */
export function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  const bytes = seededBytes(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const [a, b] = bytes(2);
    const j = ((a! << 8) | b!) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
