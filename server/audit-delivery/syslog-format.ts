import type { DeliverableAuditEvent } from "./source.js";

/**
 * RFC 5424 syslog messages, framed by octet counting (RFC 6587 §3.4.1, the framing RFC 5425
 * mandates over TLS): `<len> <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [SD] BOM MSG`.
 */

export const syslogSeverities = { emergency: 0, alert: 1, critical: 2, error: 3, warning: 4, notice: 5, informational: 6, debug: 7 } as const;
export type SyslogSeverity = keyof typeof syslogSeverities;

export { defaultEnterpriseId, defaultSyslogFacility } from "../../core/audit-sinks/config.js";

export interface SyslogMessage {
  facility: number;
  severity: SyslogSeverity;
  /** When the event happened (RFC 3339, UTC). */
  time: string;
  hostname: string;
  appName: string;
  /** Nil (`-`) when absent. */
  procId?: string;
  msgId: string;
  /** SD-ID → its parameters; parameters with an undefined value are left out. */
  structuredData: Readonly<Record<string, Readonly<Record<string, string | undefined>>>>;
  message: string;
}

/** The UTF-8 byte order mark that marks MSG as UTF-8 (RFC 5424 §6.4). */
const bom = "\uFEFF";

/** One message, without framing. */
export function formatSyslogMessage(message: SyslogMessage): string {
  if (!Number.isInteger(message.facility) || message.facility < 0 || message.facility > 23) throw new RangeError(`syslog facility must be 0-23, not ${message.facility}`);
  const pri = message.facility * 8 + syslogSeverities[message.severity];
  const header = [
    `<${pri}>1`,
    timestampField(message.time),
    headerField(message.hostname, 255),
    headerField(message.appName, 48),
    headerField(message.procId, 128),
    headerField(message.msgId, 32),
  ].join(" ");
  return `${header} ${formatStructuredData(message.structuredData)} ${bom}${message.message}`;
}

/** TIMESTAMP: RFC 3339 with at most 6 fractional digits (RFC 5424 §6.2.3), else NILVALUE rather than a malformed header. */
export function timestampField(time: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/.test(time) ? time : "-";
}

/** The octet-counting frame: the message's length in bytes, a space, the message. */
export function frameOctetCounted(message: string): Buffer {
  const body = Buffer.from(message, "utf8");
  return Buffer.concat([Buffer.from(`${body.length} `, "ascii"), body]);
}

/**
 * A header field: printable US-ASCII only (33-126), at most `max` characters, `-` (NILVALUE)
 * when empty. Anything else is replaced by `_` rather than refused: the field is a label, and
 * the whole event travels untouched in MSG.
 */
export function headerField(value: string | undefined, max: number): string {
  if (!value) return "-";
  return value.replace(/[^\x21-\x7e]/g, "_").slice(0, max);
}

/** STRUCTURED-DATA: `-` when empty, else `[id name="value" …]` per element. */
export function formatStructuredData(data: SyslogMessage["structuredData"]): string {
  const elements = Object.entries(data).map(([id, params]) => {
    const pairs = Object.entries(params)
      .filter((pair): pair is [string, string] => pair[1] !== undefined)
      .map(([name, value]) => `${sdName(name)}="${escapeParamValue(value)}"`);
    return `[${[sdName(id, true), ...pairs].join(" ")}]`;
  });
  return elements.length === 0 ? "-" : elements.join("");
}

/** PARAM-VALUE escaping (RFC 5424 §6.3.3): `"`, `\` and `]` are preceded by a backslash. */
export function escapeParamValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

/**
 * SD-NAME: 1-32 printable US-ASCII characters except `=`, space, `]` and `"`. Names are ours (not
 * user input), so a bad one is a programming error, not something to repair. Only an SD-ID may carry `@`.
 */
function sdName(name: string, isId = false): string {
  if (!/^[\x21-\x7e]{1,32}$/.test(name) || /[= \]"]/.test(name) || (!isId && name.includes("@"))) throw new Error(`not a structured-data name: ${JSON.stringify(name)}`);
  return name;
}

export interface AuditSyslogOptions {
  facility: number;
  hostname: string;
  enterpriseId: string;
}

/**
 * An audit event as a syslog message: MSGID is the action, severity `warning` for a denied or
 * failed outcome and `notice` otherwise, the identifying fields as structured data (so a SIEM can
 * route by organization or filter by actor without parsing MSG), and the whole event as JSON in MSG.
 */
export function auditSyslogMessage(event: DeliverableAuditEvent, options: AuditSyslogOptions): SyslogMessage {
  return {
    facility: options.facility,
    severity: event.outcome === "success" ? "notice" : "warning",
    time: event.at,
    hostname: options.hostname,
    appName: "casekit",
    msgId: event.action,
    structuredData: {
      [`casekit@${options.enterpriseId}`]: {
        org: event.organizationId,
        seq: String(event.seq),
        id: event.id,
        outcome: event.outcome,
        actorType: event.actor.type,
        actorId: event.actor.id ?? undefined,
        targetType: event.target.type,
        targetId: event.target.id,
        requestId: event.requestId ?? undefined,
      },
    },
    message: JSON.stringify(event),
  };
}

/** The sink's formatter for audit events: each event as one RFC 5424 message. */
export function auditSyslogFormatter(options: AuditSyslogOptions): (event: DeliverableAuditEvent) => string {
  return (event) => formatSyslogMessage(auditSyslogMessage(event, options));
}
