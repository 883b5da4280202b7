import type { AuditEvent } from "../../core/index.js";
import {
  auditChainVerdictSchema,
  auditEventListSchema,
  auditEventQuerySchema,
  auditEventSchema,
  auditExportQuerySchema,
  auditStreamQuerySchema,
  caseAuditEventQuerySchema,
} from "../../core/index.js";
import { defineApiRoute, streamed } from "../route.js";
import { ndjsonBody } from "../streaming/ndjson-body.js";
import type { SseEvent } from "../streaming/sse-body.js";
import { followSeq, sseBody } from "../streaming/sse-body.js";

/**
 * How often an event stream that has caught up asks storage for new events (and re-checks the
 * caller's access). The host owns the interval; the core only answers reads.
 */
export const auditStreamPollMs = 1_000;

const redaction =
  "Changes of a record above the reader's TLP clearance, and custom field values above the field's TLP floor, keep their paths and read `[redacted]`; secrets (key hashes, password hashes, session tokens, webhook secrets) are masked when written and never stored.";

export const auditEventRoutes = [
  defineApiRoute({
    method: "GET",
    path: "/audit-events",
    operationId: "listAuditEvents",
    tag: "Audit",
    summary: "Audit events",
    description: `One event per change of one record (a bulk operation's records each have their own), sign-ins and refusals, newest first by \`seq\`, keyset-paged. A repeated filter parameter means any of its values; \`actorId\` matches a user id or a key id; \`from\` is inclusive, \`to\` exclusive; \`q\` is a phrase found in the action or the target. ${redaction}`,
    scope: "audit:read",
    query: auditEventQuerySchema,
    response: auditEventListSchema,
    handle: ({ kit, principal, query }) => kit.audit.list(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/audit-events/export",
    operationId: "exportAuditEvents",
    tag: "Audit",
    summary: "Export audit events (NDJSON)",
    description: `The organization's events the filters keep (those of GET /audit-events; \`from\` inclusive, \`to\` exclusive), oldest first by \`seq\`, one JSON event per line (\`application/x-ndjson\`), gzip-compressed when the request accepts it. Read from the database a page at a time and written at the pace the client reads, so an export of any size runs in constant memory; the caller's access is checked again before each page (a key revoked meanwhile cuts the export). A bad filter is 400 before anything is sent; a failure after the first line cuts the connection, so a truncated export never ends like a whole one. ${redaction}`,
    scope: "audit:read",
    query: auditExportQuerySchema,
    response: auditEventSchema,
    stream: "ndjson",
    handle: ({ kit, principal, query }) => streamed(ndjsonBody(kit.audit.exportPages(principal, query))),
  }),
  defineApiRoute({
    method: "GET",
    path: "/audit-events/stream",
    operationId: "streamAuditEvents",
    tag: "Audit",
    summary: "Follow audit events (Server-Sent Events)",
    description: `New audit events as they are written, as Server-Sent Events: \`id:\` is the event's \`seq\`, \`data:\` the event as JSON. A client that names no event starts from now; after a reconnect EventSource sends \`Last-Event-ID\` and the stream resumes right after it, without loss or duplicate; \`?lastEventId=\` does the same on a first connection (\`0\`: from the first event kept); the header wins. A \`: heartbeat\` comment after 15 s of quiet. The caller's access is checked on every read (about once a second): a key revoked or suspended, or an owner disabled, ends the stream, and the reconnect is answered 401. ${redaction}`,
    scope: "audit:read",
    query: auditStreamQuerySchema,
    response: auditEventSchema,
    stream: "sse",
    handle: ({ kit, principal, query }) => {
      const reads = kit.audit.stream(principal, query);
      return streamed(
        sseBody({
          async *follow(after, signal): AsyncGenerator<SseEvent> {
            const start = after ?? (await reads.head());
            for await (const event of followSeq<AuditEvent>(reads.after, start, signal, { pollMs: auditStreamPollMs })) yield { id: event.seq, data: event };
          },
        }),
      );
    },
  }),
  defineApiRoute({
    method: "GET",
    path: "/audit-events/verify",
    operationId: "verifyAuditEvents",
    tag: "Audit",
    summary: "Verify the audit events' hash chain",
    description:
      "Recomputes the organization's hash chain from its start (the latest signed retention checkpoint, or the end of the events written before the chain existed) and names the first event that was changed, removed or reordered, or a checkpoint whose signature does not match.",
    scope: "audit:read",
    response: auditChainVerdictSchema,
    handle: ({ kit, principal }) => kit.audit.verify(principal),
  }),
  defineApiRoute({
    method: "GET",
    path: "/cases/:id/audit-events",
    operationId: "listCaseAuditEvents",
    tag: "Audit",
    summary: "A case's audit trail",
    description: `The case's events and those of its tasks, observables and comments, newest first, with the filters of GET /audit-events. 404 for an unknown case; 403 for a case above the caller's TLP clearance. ${redaction}`,
    scope: "audit:read",
    query: caseAuditEventQuerySchema,
    response: auditEventListSchema,
    handle: ({ kit, principal, params, query }) => kit.audit.listForCase(principal, params.id ?? "", query),
  }),
];
