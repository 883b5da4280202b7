import type { WebhookGrant } from "../webhooks/types.js";
import type { SyslogSinkConfigDocument } from "./config.js";

export const auditSinkStatuses = ["active", "paused"] as const;
export type AuditSinkStatus = (typeof auditSinkStatuses)[number];

/**
 * An organization's syslog sink as stored: where its audit events go (the config document,
 * checked by checkSyslogSinkConfig) and the grant it reads under, recorded from its creator like a
 * webhook subscription's (core/webhooks/grant.ts): it delivers nothing its creator could not read.
 */
export interface StoredAuditSink {
  id: string;
  organizationId: string;
  name: string;
  config: SyslogSinkConfigDocument;
  /** `paused` keeps the cursor where it is: resuming delivers what was written meanwhile. */
  status: AuditSinkStatus;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  grant: WebhookGrant;
}

/** How far a sink delivered: the seq of the last event handed to its receiver. */
export interface AuditSinkCursor {
  id: string;
  organizationId: string;
  seq: number;
  updatedAt: string;
}
