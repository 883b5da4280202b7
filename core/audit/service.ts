import { z } from "zod";
import type { Principal } from "../access/principal.js";
import { requireClearance, requireScope } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { ChainHead } from "../log/chain.js";
import { walkChain } from "../log/chain.js";
import type { UnitOfWork } from "../ports/storage.js";
import { boundedString, listResponseSchema, queryInt } from "../schema/common.js";
import { parse } from "../validation.js";
import { hashAuditRow, spanOf } from "./chain.js";
import { checkpointSignatureValid } from "./checkpoint.js";
import { createAuditFollow } from "./follow.js";
import { auditFilterShape } from "./filter-shape.js";
import { redactForReader } from "./redact.js";
import { pruneAuditEvents } from "./retention.js";
import type { AuditEvent, AuditEventFilter, ChainedAuditRow } from "./types.js";
import { auditActorTypes, auditOutcomes } from "./types.js";

/** An audit events cursor: the last seq of the page before (positions are what pages walk). */
const auditCursorPattern = /^[1-9][0-9]{0,14}$/;

const pageShape = {
  limit: queryInt(1, 500).default(50),
  cursor: z.string().regex(auditCursorPattern, "is not a cursor this API issued").optional().meta({ description: "Opaque cursor from a previous page's nextCursor" }),
};

export const auditEventQuerySchema = z.strictObject({ ...pageShape, ...auditFilterShape, caseId: boundedString(64).optional() });
export const caseAuditEventQuerySchema = z.strictObject({ ...pageShape, ...auditFilterShape });

export const auditEventSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    seq: z.int().meta({ description: "Position in the organization's hash chain: 1, 2, 3 … without gaps" }),
    at: z.string(),
    actor: z.object({
      type: z.enum(auditActorTypes),
      id: z.string().nullable(),
      onBehalfOf: z.string().optional().meta({ description: "The user an API key acts for" }),
    }),
    requestId: z.string().nullable(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string(), caseId: z.string().optional() }),
    outcome: z.enum(auditOutcomes),
    changes: z.array(z.object({ path: z.string(), before: z.unknown(), after: z.unknown() })).meta({
      description: "Each changed value by dotted path; values above the reader's clearance, or a custom field's TLP floor, read `[redacted]`; secrets always read `[masked]`",
    }),
    bulkRequestId: z.string().nullable(),
    tlp: z.int().nullable(),
  })
  .meta({ id: "AuditEvent" });

export const auditEventListSchema = listResponseSchema(auditEventSchema).meta({ id: "AuditEventList" });

export const auditChainVerdictSchema = z
  .object({
    ok: z.boolean(),
    checked: z.int().meta({ description: "How many rows were checked (a bulk operation's row covers one position per record)" }),
    from: z.object({
      seq: z.int().meta({ description: "The position checking started after" }),
      kind: z.enum(["start", "checkpoint", "legacy"]).meta({
        description: "The chain's start; the latest signed retention checkpoint; or the end of the events written before the chain existed (unhashed)",
      }),
    }),
    firstBad: z
      .object({
        id: z.string().nullable().meta({ description: "The row, or null when rows are missing from the end" }),
        seq: z.int(),
        reason: z.enum(["hash", "link", "sequence", "missing", "checkpoint"]),
      })
      .optional()
      .meta({ description: "The first row whose content, link or position does not match, or a checkpoint whose signature does not; absent when ok" }),
  })
  .meta({ id: "AuditChainVerdict" });

export type AuditChainVerdict = z.infer<typeof auditChainVerdictSchema>;

export function createAuditService(deps: CaseKitDeps) {
  const { storage } = deps;

  /** A page of events newest first, as the reader may see them. */
  async function page(principal: Principal, tx: UnitOfWork, filter: AuditEventFilter, limit: number, cursor: string | undefined) {
    const beforeSeq = cursor === undefined ? undefined : Number(cursor);
    const rows = await tx.audit.list(principal.organizationId, { limit: limit + 1, ...(beforeSeq !== undefined ? { beforeSeq } : {}) }, filter);
    const data = await redactForReader(deps, tx, principal.organizationId, principal.tlpClearance, rows.slice(0, limit));
    return { data, nextCursor: rows.length > limit ? String(data.at(-1)!.seq) : null };
  }

  const follow = createAuditFollow(deps);

  return {
    /** The organization's audit events, newest first, filtered. */
    async list(principal: Principal, query: unknown): Promise<{ data: AuditEvent[]; nextCursor: string | null }> {
      requireScope(principal, "audit:read");
      const { limit, cursor, ...filter } = parse(auditEventQuerySchema, query);
      return storage.read((tx) => page(principal, tx, filter, limit, cursor));
    },

    /** One case's whole trail: the case's own events and its tasks', observables' and comments'. */
    async listForCase(principal: Principal, caseId: string, query: unknown): Promise<{ data: AuditEvent[]; nextCursor: string | null }> {
      requireScope(principal, "audit:read");
      const { limit, cursor, ...filter } = parse(caseAuditEventQuerySchema, query);
      return storage.read(async (tx) => {
        const found = await tx.cases.findById(principal.organizationId, caseId);
        if (!found || found.organizationId !== principal.organizationId) throw new CaseKitError("not_found", `No case ${caseId}`);
        requireClearance(principal, found.tlp);
        return page(principal, tx, { ...filter, caseId }, limit, cursor);
      });
    },

    /**
     * Recomputes the organization's chain from where it starts (the latest checkpoint, whose
     * signature is checked first, or the end of the legacy rows) and names the first row that
     * does not match; rows missing from the end are found against the recorded head.
     */
    async verify(principal: Principal): Promise<AuditChainVerdict> {
      requireScope(principal, "audit:read");
      const organizationId = principal.organizationId;
      const { checkpoint, legacySeq } = await storage.read((tx) => tx.audit.chainStart(organizationId));
      let from: AuditChainVerdict["from"] = legacySeq > 0 ? { seq: legacySeq, kind: "legacy" } : { seq: 0, kind: "start" };
      let previous: ChainHead = { seq: legacySeq, hash: "" };
      if (checkpoint) {
        if (!checkpointSignatureValid(checkpoint, deps.config.keyHashSecret)) {
          return { ok: false, checked: 0, from, firstBad: { id: checkpoint.id, seq: checkpoint.seq, reason: "checkpoint" } };
        }
        if (checkpoint.seq > legacySeq) {
          from = { seq: checkpoint.seq, kind: "checkpoint" };
          previous = { seq: checkpoint.seq, hash: checkpoint.hash };
        }
      }
      const head = await storage.read((tx) => tx.audit.head(organizationId));
      const verdict = await walkChain<ChainedAuditRow>({
        start: previous,
        head,
        page: (afterSeq, limit) => storage.read((tx) => tx.audit.chain(organizationId, afterSeq, limit)),
        hashOf: ({ hash: _hash, ...row }) => hashAuditRow(row),
        spanOf,
      });
      return { ...verdict, from };
    },

    /**
     * Retention, for every organization: events older than its policy's auditRetentionDays (else
     * the deployment's `config.auditRetentionDays`; neither: kept) are pruned behind a signed
     * checkpoint. The dispatcher loop runs it about once an hour (server/worker.ts).
     */
    prune: () => pruneAuditEvents(deps),

    /** The export's pages, oldest first (core/audit/follow.ts). */
    exportPages: follow.exportPages,

    /** An event stream's reads: the head to start from now, and the events after a position (core/audit/follow.ts). */
    stream: follow.stream,
  };
}
