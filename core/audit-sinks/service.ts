import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import { grantOf, requireHoldsGrant } from "../webhooks/grant.js";
import { parseWebhookAllowlist } from "../webhooks/ssrf.js";
import type { WebhookAllowlist } from "../webhooks/ssrf.js";
import { checkSyslogSinkConfig, syslogSinkConfigSchema } from "./config.js";
import type { SyslogSinkConfigDocument } from "./config.js";
import type { AuditSink } from "./schema.js";
import { auditSinkCreateSchema, auditSinkListQuerySchema, auditSinkUpdateSchema } from "./schema.js";
import type { StoredAuditSink } from "./types.js";

export interface AuditSinkService {
  create(principal: Principal, input: unknown): Promise<AuditSink>;
  get(principal: Principal, id: string): Promise<AuditSink>;
  list(principal: Principal, query: unknown): Promise<{ data: AuditSink[]; nextCursor: string | null }>;
  update(principal: Principal, id: string, input: unknown): Promise<AuditSink>;
  delete(principal: Principal, id: string): Promise<AuditSink>;
}

/** A sink as the API shows it: its grant's clearance, not its key or scopes. */
export function toPublicAuditSink(sink: StoredAuditSink): AuditSink {
  return {
    id: sink.id,
    organizationId: sink.organizationId,
    name: sink.name,
    config: sink.config,
    status: sink.status,
    tlpClearance: sink.grant.tlpClearance,
    createdAt: sink.createdAt,
    updatedAt: sink.updatedAt,
    createdBy: sink.createdBy,
  };
}

/**
 * The config document checked as a sink's: the shape, the SSRF rule under the deployment's
 * allowlist, TLS-only options and the CA (checkSyslogSinkConfig); problems are named by their
 * path in the request body (`config.target`).
 */
export function checkSinkConfig(config: unknown, allowlist: WebhookAllowlist): SyslogSinkConfigDocument {
  try {
    checkSyslogSinkConfig(config, allowlist);
  } catch (error) {
    if (!(error instanceof CaseKitError) || !error.errors) throw error;
    const errors = error.errors.map((e) => ({ ...e, path: `config.${e.path}` }));
    throw new CaseKitError(error.code, `${errors[0]!.path}: ${errors[0]!.message}`, errors);
  }
  return parse(syslogSinkConfigSchema, config);
}

/**
 * Organizations' syslog sinks (README "Audit delivery"). Administrative: `audit:read` to look,
 * `audit:manage` to change. A sink is a standing read of the audit events, so it is held to the
 * webhook subscriptions' rule (core/webhooks/grant.ts): created with its creator's grant, and
 * only someone who holds at least that grant may point it elsewhere or resume it; pausing and
 * deleting only stop data. A new sink starts at the organization's current head: it delivers what
 * is written from its creation on (its own `audit_sink.created` event first), not the history
 * (the export route reads that).
 */
export function createAuditSinkService(deps: CaseKitDeps): AuditSinkService {
  const { storage, clock, ids } = deps;
  const allowlist = parseWebhookAllowlist(deps.config.webhookAllowlist);

  async function load(tx: UnitOfWork, principal: Principal, id: string): Promise<StoredAuditSink> {
    const sink = await tx.auditSinks.findById(principal.organizationId, id);
    if (!sink) throw new CaseKitError("not_found", `No audit sink ${id}`);
    return sink;
  }

  /** `gone`: a deletion, whose event lists every value before it (recordChange). */
  const change = (tx: UnitOfWork, principal: Principal, name: string, before: StoredAuditSink | null, after: StoredAuditSink, now: Date, gone = false) =>
    recordChange(deps, tx, principal, { name, resourceType: "audit_sink", before: before && toPublicAuditSink(before), after: toPublicAuditSink(after), tlp: null, now, ...(gone ? { gone } : {}) });

  return {
    async create(principal, input) {
      requireScope(principal, "audit:manage");
      // The sink reads the audit events as its creator: who cannot read them cannot send them away.
      requireScope(principal, "audit:read");
      const body = parse(auditSinkCreateSchema, input);
      const config = checkSinkConfig(body.config, allowlist);
      const now = clock.now();
      const at = now.toISOString();
      const stored: StoredAuditSink = {
        id: ids.next("snk"),
        organizationId: principal.organizationId,
        name: body.name,
        config,
        status: body.status,
        createdAt: at,
        updatedAt: at,
        createdBy: principal.userId,
        grant: grantOf(principal),
      };
      await storage.transaction(async (tx) => {
        // From the head as it stands before this change: the sink's own creation is its first event.
        const head = await tx.audit.head(principal.organizationId);
        await tx.auditSinks.insert(stored);
        await tx.auditSinks.setCursor(principal.organizationId, stored.id, head.seq, at);
        await change(tx, principal, "audit_sink.created", null, stored, now);
      });
      return toPublicAuditSink(stored);
    },

    async get(principal, id) {
      requireScope(principal, "audit:read");
      return toPublicAuditSink(await storage.read((tx) => load(tx, principal, id)));
    },

    async list(principal, query) {
      requireScope(principal, "audit:read");
      const { limit, cursor } = parse(auditSinkListQuerySchema, query);
      const rows = await storage.read((tx) => tx.auditSinks.list(principal.organizationId, { limit: limit + 1, beforeId: decodeCursor(cursor) }));
      return toPage(rows.map(toPublicAuditSink), limit);
    },

    async update(principal, id, input) {
      requireScope(principal, "audit:manage");
      const patch = parse(auditSinkUpdateSchema, input);
      const config = patch.config === undefined ? undefined : checkSinkConfig(patch.config, allowlist);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        // Pausing only stops data; anything else (a new target, resuming) needs at least its grant.
        const onlyPauses = patch.status === "paused" && Object.keys(patch).length === 1;
        if (!onlyPauses) requireHoldsGrant(principal, before);
        const after: StoredAuditSink = {
          ...before,
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(config ? { config } : {}),
          ...(patch.status ? { status: patch.status } : {}),
          updatedAt: now.toISOString(),
        };
        await tx.auditSinks.update(after);
        await change(tx, principal, "audit_sink.updated", before, after, now);
        return toPublicAuditSink(after);
      });
    },

    async delete(principal, id) {
      requireScope(principal, "audit:manage");
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const sink = await load(tx, principal, id);
        await tx.auditSinks.delete(principal.organizationId, id);
        await change(tx, principal, "audit_sink.deleted", null, sink, now, true);
        return toPublicAuditSink(sink);
      });
    },
  };
}
