import { auditSinkCreateSchema, auditSinkListQuerySchema, auditSinkListSchema, auditSinkSchema, auditSinkUpdateSchema } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

const grantRule =
  "The sink records the caller's grant (the key, its TLP clearance and scopes) and delivers as it, capped by the key's and the owner's rights at send time: values above that clearance read `[redacted]`, and nothing is sent while the grant lacks `audit:read` or its key or owner is suspended.";

export const auditSinkRoutes = [
  defineApiRoute({
    method: "POST",
    path: "/audit-sinks",
    operationId: "createAuditSink",
    errors: [422],
    tag: "Audit",
    summary: "Create a syslog sink of the audit events",
    description: [
      "Sends the organization's audit events, each once and in `seq` order, to a syslog receiver as RFC 5424 messages over TCP or TLS (README \"Audit delivery\"). It starts at the current head: its own `audit_sink.created` event is the first it sends; history is read with GET /audit-events.",
      "`config.target` is `tcp://host:port` or `tls://host:port`; a document of the wrong shape is 400 `validation_failed`; one of the right shape that does not hold together is 422 `invalid_sink_config` with every problem by path: a loopback, private, link-local or otherwise reserved address or a local name on `config.target` unless the deployment's CASEKIT_WEBHOOK_ALLOWLIST names it (the webhooks' SSRF rule, checked again on every address DNS returns and on the connected socket). `ca` (PEM certificates only) and `servername` apply to tls only.",
      "Needs `audit:manage` and `audit:read`.",
      grantRule,
    ].join(" "),
    scope: "audit:manage",
    alsoScopes: ["audit:read"],
    body: auditSinkCreateSchema,
    response: auditSinkSchema,
    handle: ({ kit, principal, body }) => kit.auditSinks.create(principal, body),
  }),
  defineApiRoute({
    method: "GET",
    path: "/audit-sinks",
    operationId: "listAuditSinks",
    tag: "Audit",
    summary: "List syslog sinks",
    description: "The organization's sinks, newest first, keyset-paged with `limit` and `cursor`.",
    scope: "audit:read",
    query: auditSinkListQuerySchema,
    response: auditSinkListSchema,
    handle: ({ kit, principal, query }) => kit.auditSinks.list(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/audit-sinks/:id",
    operationId: "getAuditSink",
    tag: "Audit",
    summary: "Get a syslog sink",
    description: "404 for an unknown id and for another organization's sink alike.",
    scope: "audit:read",
    response: auditSinkSchema,
    handle: ({ kit, principal, params }) => kit.auditSinks.get(principal, params.id ?? ""),
  }),
  defineApiRoute({
    method: "PATCH",
    path: "/audit-sinks/:id",
    operationId: "updateAuditSink",
    errors: [422],
    tag: "Audit",
    summary: "Change a syslog sink",
    description:
      "Send only the fields to change; `config` replaces the whole document and is checked as at creation (400 `validation_failed` / 422 `invalid_sink_config`). `status` \"paused\" stops delivery and keeps the cursor; \"active\" resumes after it, so nothing written meanwhile is skipped. Any change but `{ \"status\": \"paused\" }` needs every scope and at least the TLP clearance of the sink's grant (403 `missing_scope` / `tlp_restricted`). The running delivery picks the change up within seconds.",
    scope: "audit:manage",
    body: auditSinkUpdateSchema,
    response: auditSinkSchema,
    handle: ({ kit, principal, params, body }) => kit.auditSinks.update(principal, params.id ?? "", body),
  }),
  defineApiRoute({
    method: "DELETE",
    path: "/audit-sinks/:id",
    operationId: "deleteAuditSink",
    tag: "Audit",
    summary: "Delete a syslog sink",
    description: "Removes the sink with its cursor and answers 200 with the record as it was; its delivery stops. The audit trail keeps it.",
    scope: "audit:manage",
    response: auditSinkSchema,
    handle: ({ kit, principal, params }) => kit.auditSinks.delete(principal, params.id ?? ""),
  }),
];
