import { X509Certificate } from "node:crypto";
import { z } from "zod";
import { CaseKitError } from "../errors.js";
import type { WebhookAllowlist } from "../webhooks/ssrf.js";
import { checkTargetHost } from "../webhooks/ssrf.js";
import { parse } from "../validation.js";

/** Facility 13, "log audit" (RFC 5424 table 1); 16-23 are local0-local7. */
export const defaultSyslogFacility = 13;

/**
 * The SD-ID of our structured data: `name@<private enterprise number>` (RFC 5424 §7.2.2). 32473
 * is the number IANA reserves for documentation and examples (RFC 5612); an operator with an
 * enterprise number of their own sets it.
 */
export const defaultEnterpriseId = "32473";

/** Where a syslog sink sends: a receiver over plain TCP, or over TLS (RFC 5425, usually port 6514). */
export interface SyslogTarget {
  protocol: "tcp" | "tls";
  host: string;
  port: number;
  /** TLS: the PEM certificates to trust instead of Node's bundled roots (a private CA). */
  ca?: string;
  /** TLS: the name sent as SNI and checked against the certificate, when it differs from `host`. */
  servername?: string;
  /** TLS: a client certificate and key (PEM), for receivers that authenticate senders. */
  cert?: string;
  key?: string;
}

/** The syntax parseSyslogTarget reads, stated in the document: a port of 1-65535 included. */
const syslogTargetPattern = /^(?:tcp|tls|TCP|TLS):\/\/(?:\[[0-9A-Fa-f:.]+\]|[^:/?#@[\]\s]+):(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$/;

/**
 * What configures a syslog sink, as one document: the same shape for a deployment's settings or
 * an organization's sink created through the API. Validated whole, with every problem by path.
 */
export const syslogSinkConfigSchema = z.strictObject({
  target: z
    .string()
    .max(2048)
    .regex(syslogTargetPattern, "must be tcp://host:port or tls://host:port, with nothing after the port")
    .meta({ description: "`tcp://host:port` or `tls://host:port` (RFC 5425's port is 6514). The pattern is the syntax; which hosts and addresses are allowed (the webhooks' SSRF rule) is checked by the service, which knows the deployment's allowlist", examples: ["tls://siem.example.com:6514"] }),
  ca: z.string().max(64 * 1024).optional().meta({ description: "PEM certificates trusted for the receiver instead of the bundled roots (tls only)" }),
  servername: z.string().max(253).optional().meta({ description: "The name the receiver's certificate must carry, when it differs from the target's host (tls only)" }),
  facility: z.int().min(0).max(23).default(defaultSyslogFacility).meta({ description: "Syslog facility, 0-23; 13 (log audit) by default, 16-23 are local0-local7" }),
  enterpriseId: z.string().regex(/^[1-9]\d{0,9}(\.\d{1,10}){0,3}$/, "must be a private enterprise number (digits, optionally dotted)").default(defaultEnterpriseId).meta({ description: "The enterprise number in the structured data's SD-ID (`casekit@<number>`); 32473 is the documentation number" }),
});

export type SyslogSinkConfigInput = z.input<typeof syslogSinkConfigSchema>;
/** The document as stored: defaults applied. */
export type SyslogSinkConfigDocument = z.output<typeof syslogSinkConfigSchema>;

export interface SyslogSinkConfig {
  target: SyslogTarget;
  facility: number;
  enterpriseId: string;
}

/**
 * Checks a sink's configuration before anything is stored or sent: the shape, a target with a
 * scheme, host and port and nothing else, the SSRF rule on its host (the same rule as a webhook
 * URL: a literal private address or local name is refused unless the allowlist names it; names
 * are checked again at connect time), TLS-only options only with tls, and a CA that parses.
 * A document the schema refuses is validation_failed; one of the right shape that does not hold
 * together (a refused target, a tls option on tcp, a CA that does not parse) is 422
 * invalid_sink_config, as a custom field definition's is invalid_field_definition. Every
 * problem is listed.
 */
export function checkSyslogSinkConfig(input: unknown, allowlist: WebhookAllowlist): SyslogSinkConfig {
  const config = parse(syslogSinkConfigSchema, input);
  const errors: { path: string; message: string }[] = [];
  const target = parseSyslogTarget(config.target);
  if (typeof target === "string") errors.push({ path: "target", message: target });
  else {
    const refused = checkTargetHost(target.host, target.port, allowlist);
    if (refused) errors.push({ path: "target", message: refused });
    if (target.protocol === "tcp") {
      for (const path of ["ca", "servername"] as const) if (config[path] !== undefined) errors.push({ path, message: "applies to tls:// targets only" });
    }
  }
  if (config.ca !== undefined) {
    const problem = caProblem(config.ca);
    if (problem) errors.push({ path: "ca", message: problem });
  }
  if (errors.length > 0 || typeof target === "string") {
    throw new CaseKitError("invalid_sink_config", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
  }
  return {
    target: { ...target, ...(config.ca ? { ca: config.ca } : {}), ...(config.servername ? { servername: config.servername } : {}) },
    facility: config.facility,
    enterpriseId: config.enterpriseId,
  };
}

/** `tcp://host:port` or `tls://host:port` as a target, or why not. */
export function parseSyslogTarget(text: string): Omit<SyslogTarget, "ca" | "servername"> | string {
  const match = /^(tcp|tls):\/\/(\[[0-9a-f:.]+\]|[^:/?#@[\]\s]+):(\d{1,5})$/i.exec(text);
  if (!match) return "must be tcp://host:port or tls://host:port, with nothing after the port";
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return "port must be 1-65535";
  return { protocol: match[1]!.toLowerCase() as "tcp" | "tls", host: match[2]!.replace(/^\[|\]$/g, "").toLowerCase(), port };
}

/** Null when `pem` holds one or more certificates and nothing else, else why not. */
function caProblem(pem: string): string | null {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return "must hold PEM certificates (-----BEGIN CERTIFICATE-----)";
  if (pem.replace(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g, "").trim() !== "") return "must hold certificates only (no private key or other text)";
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${index + 1} does not parse`;
    }
  }
  return null;
}
