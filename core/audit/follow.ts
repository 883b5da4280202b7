import { z } from "zod";
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { boundedString } from "../schema/common.js";
import { parse } from "../validation.js";
import { redactForReader } from "./redact.js";
import { auditFilterShape } from "./filter-shape.js";
import { standingAccess } from "./standing-access.js";
import type { AuditEvent, AuditEventFilter } from "./types.js";

/** Events per page of an export: one page is held in memory at a time. */
export const auditExportPageSize = 500;

export const auditExportQuerySchema = z.strictObject({ ...auditFilterShape, caseId: boundedString(64).optional() });

export const auditStreamQuerySchema = z.strictObject({
  lastEventId: z
    .string()
    .regex(/^\d{1,15}$/, "is not the id of an event this stream sent")
    .optional()
    .meta({ description: "Resume after this event (`0`: from the first event kept); the `Last-Event-ID` header wins. Neither: from now" }),
});

/**
 * Reads that follow the log oldest first (`pageAfter`), for the export and the event stream. Every
 * page is read as the caller holds access at that moment (standingAccess: a revoked or suspended
 * key, an inactive owner or a lost scope stops the read; a lowered clearance narrows it) and
 * redacted for that clearance, like every other read of audit events.
 */
export function createAuditFollow(deps: Pick<CaseKitDeps, "storage" | "clock" | "definitions">) {
  const { storage } = deps;

  /** Up to `limit` events after `afterSeq` that `filter` keeps, redacted for `principal`. */
  function readAfter(principal: Principal, afterSeq: number, limit: number, filter: AuditEventFilter): Promise<AuditEvent[]> {
    return storage.read(async (tx) => {
      const events = await tx.audit.pageAfter(principal.organizationId, afterSeq, limit, filter);
      return redactForReader(deps, tx, principal.organizationId, principal.tlpClearance, events);
    });
  }

  return {
    /**
     * The organization's events the filters keep (`from` inclusive, `to` exclusive), oldest first,
     * page after page. The query is checked and the scope required now (a bad query is a 400
     * before anything is sent); access is checked again before each page.
     */
    exportPages(principal: Principal, query: unknown): (signal?: AbortSignal) => AsyncGenerator<AuditEvent[]> {
      requireScope(principal, "audit:read");
      const filter = parse(auditExportQuerySchema, query);
      const access = standingAccess(deps, principal, "audit:read");
      return async function* pages(signal) {
        let afterSeq = 0;
        for (;;) {
          signal?.throwIfAborted();
          const page = await readAfter(await access.current(), afterSeq, auditExportPageSize, filter);
          if (page.length === 0) return;
          yield page;
          if (page.length < auditExportPageSize) return;
          afterSeq = page.at(-1)!.seq;
        }
      };
    },

    /**
     * An event stream's reads: `head()` is the last position written now (where a client that
     * names no event starts: from now), `after(seq, limit)` the next events, ascending. The host
     * calls `after` on its own interval; access is checked on every call.
     */
    stream(principal: Principal, query: unknown) {
      requireScope(principal, "audit:read");
      parse(auditStreamQuerySchema, query);
      const access = standingAccess(deps, principal, "audit:read");
      return {
        head: async (): Promise<number> => {
          await access.current();
          return (await storage.read((tx) => tx.audit.head(principal.organizationId))).seq;
        },
        after: async (seq: number, limit: number): Promise<AuditEvent[]> => readAfter(await access.current(), seq, limit, {}),
      };
    },
  };
}
