import { z } from "zod";
import type { Principal } from "../access/principal.js";
import { visibleUpTo } from "../access/clearance.js";
import { requireScope } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { decodeCursor, toPage } from "../pagination.js";
import { anyOf, boundedString, listResponseSchema, pageQueryShape, timestampSchema } from "../schema/common.js";
import { parse } from "../validation.js";
import type { ChainVerdict } from "./chain.js";
import { hashTlpEntry } from "./chain.js";
import { walkChain } from "../log/chain.js";
import { papLevels, tlpLevels } from "./levels.js";
import type { StoredTlpAuditEntry, TlpAuditEntry } from "./types.js";
import { tlpActions, tlpResourceTypes } from "./types.js";

export const tlpAuditQuerySchema = z.strictObject({
  ...pageQueryShape,
  resourceType: anyOf(z.enum(tlpResourceTypes)).optional(),
  action: anyOf(z.enum(tlpActions)).optional(),
  resourceId: boundedString(64).optional(),
  actorId: boundedString(64).optional().meta({ description: "A user id or a key id" }),
  outcome: z.enum(["allowed", "denied"]).optional(),
  from: timestampSchema.optional().meta({ description: "Entries at or after this time" }),
  to: timestampSchema.optional().meta({ description: "Entries before this time" }),
});

export const tlpAuditEntrySchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    seq: z.int(),
    actorUserId: z.string().nullable(),
    actorKeyId: z.string().nullable(),
    resourceType: z.enum(tlpResourceTypes),
    resourceId: z.string(),
    action: z.enum(tlpActions),
    tlpBefore: z.int().nullable(),
    tlpAfter: z.int().nullable(),
    outcome: z.enum(["allowed", "denied"]),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    requestId: z.string().nullable(),
    at: z.string(),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: "TlpAuditEntry" });

export const tlpAuditListSchema = listResponseSchema(tlpAuditEntrySchema).meta({ id: "TlpAuditList" });

export const tlpConstantsSchema = z
  .object({
    tlp: z.array(z.object({ level: z.int(), label: z.string(), description: z.string(), color: z.string(), policy: z.string() })),
    pap: z.array(z.object({ level: z.int(), label: z.string(), description: z.string(), color: z.string() })),
  })
  .meta({ id: "TlpConstants" });

export function createTlpService(deps: CaseKitDeps) {
  const { storage } = deps;

  return {
    constants(_principal: Principal): z.infer<typeof tlpConstantsSchema> {
      return { tlp: tlpLevels.map((l) => ({ ...l })), pap: papLevels.map((l) => ({ ...l })) };
    },

    async auditLogs(principal: Principal, query: unknown): Promise<{ data: TlpAuditEntry[]; nextCursor: string | null }> {
      requireScope(principal, "audit:read");
      const { limit, cursor, ...filter } = parse(tlpAuditQuerySchema, query);
      // The log obeys TLP like the records it names: nothing above the reader's clearance.
      const rows = await storage.read((tx) =>
        tx.tlpAudit.list(principal.organizationId, { ...filter, maxTlp: visibleUpTo(principal.tlpClearance) }, { limit: limit + 1, beforeId: decodeCursor(cursor) }),
      );
      return toPage(rows, limit);
    },

    /** Recomputes the organization's whole chain and names the first entry that does not match (core/log/chain.ts walkChain). */
    async verify(principal: Principal): Promise<ChainVerdict> {
      requireScope(principal, "audit:read");
      const head = await storage.read((tx) => tx.tlpAudit.head(principal.organizationId));
      return walkChain<StoredTlpAuditEntry>({
        start: { seq: 0, hash: "" },
        head,
        page: (afterSeq, limit) => storage.read((tx) => tx.tlpAudit.chain(principal.organizationId, afterSeq, limit)),
        hashOf: ({ hash: _hash, ...entry }) => hashTlpEntry(entry),
      });
    },
  };
}
