import type { Cidr, IpBytes } from "../net/ip.js";
import { embeddedIpv4, formatIp, inCidr, parseCidr, parseIp, rangeOf } from "../net/ip.js";

/**
 * Where webhook deliveries may go (SSRF): only addresses ipaddr.js calls `unicast`, i.e. outside
 * every special-purpose range IANA lists (loopback, private, link-local and cloud metadata,
 * unique local, CGNAT, multicast, documentation, Teredo, 6to4, NAT64 local use …). Deny by
 * default: a range added to the table is refused without a change here. Checked on the URL at
 * create/update and on the address actually connected to at send time (DNS rebinding fails).
 */
const rangeReasons: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local (cloud metadata)",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT",
  private: "private",
  reserved: "reserved or documentation",
  uniqueLocal: "unique local (private; AWS metadata fd00:ec2::254)",
  deprecatedSiteLocal: "site-local",
  discard: "discard",
  rfc6052: "NAT64 local-use",
  rfc6145: "IPv4-translated",
  "6to4": "6to4",
  teredo: "Teredo",
  benchmarking: "benchmarking",
};

/** `::a.b.c.d`: IPv4-compatible, deprecated (RFC 4291); ipaddr.js files it under unicast. */
const ipv4Compatible = parseCidr("::/96")!;

/** Why an address is off limits, or null when it is a public unicast address. */
export function forbiddenReason(address: IpBytes): string | null {
  // IPv4-mapped and well-known NAT64 addresses route to the IPv4 they carry: judge that one.
  const v4 = embeddedIpv4(address);
  if (v4) return forbiddenReason(v4);
  const range = rangeOf(address);
  if (range !== "unicast") return rangeReasons[range] ?? `special-purpose (${range})`;
  if (inCidr(address, ipv4Compatible)) return "IPv4-compatible (deprecated)";
  return null;
}

/**
 * Names that mean "this machine or its private network" whatever DNS says: localhost (RFC 6761),
 * .local (mDNS), .internal (reserved for private use), home.arpa (RFC 8375).
 */
function isLocalName(host: string): boolean {
  return ["localhost", "local", "internal", "home.arpa"].some((name) => host === name || host.endsWith(`.${name}`));
}

/** `Example.COM.` and `example.com` are the same host: DNS ignores case and the root's trailing dot. */
function canonicalHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, "");
}

/** What the operator allows explicitly (`CASEKIT_WEBHOOK_ALLOWLIST`). */
export interface WebhookAllowlist {
  entries: readonly AllowEntry[];
}

type AllowEntry = { kind: "host"; host: string; port: number | null } | { kind: "range"; cidr: Cidr; port: number | null };

/**
 * Parses `127.0.0.1:8787,10.1.0.0/16,hooks.internal,[::1]:9000`: host names, addresses or CIDR
 * ranges, each optionally with `:port`. Throws on a malformed entry (a start-up error).
 */
export function parseWebhookAllowlist(text: string | undefined): WebhookAllowlist {
  const entries: AllowEntry[] = [];
  for (const raw of (text ?? "").split(",").map((e) => e.trim()).filter(Boolean)) {
    const { host, port } = splitPort(raw);
    const cidr = parseCidr(host);
    if (cidr) entries.push({ kind: "range", cidr, port });
    else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host)) entries.push({ kind: "host", host: canonicalHost(host), port });
    else throw new Error(`CASEKIT_WEBHOOK_ALLOWLIST: "${raw}" is not a host name, address or CIDR range (optionally with :port)`);
  }
  return { entries };
}

function splitPort(entry: string): { host: string; port: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1]!, port: toPort(bracketed[2], entry) };
  const colons = entry.split(":").length - 1;
  if (colons === 1) {
    const [host, port] = entry.split(":");
    return { host: host!, port: toPort(port, entry) };
  }
  return { host: entry, port: null }; // no port, or a bare IPv6 address
}

function toPort(text: string | undefined, entry: string): number | null {
  if (text === undefined) return null;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`CASEKIT_WEBHOOK_ALLOWLIST: bad port in "${entry}"`);
  return port;
}

export function allowsHost(allowlist: WebhookAllowlist, host: string, port: number): boolean {
  const name = canonicalHost(host);
  return allowlist.entries.some((e) => e.kind === "host" && e.host === name && (e.port === null || e.port === port));
}

export function allowsAddress(allowlist: WebhookAllowlist, address: IpBytes, port: number): boolean {
  const candidates = [address, embeddedIpv4(address)].filter((a): a is IpBytes => a !== null);
  return allowlist.entries.some((e) => e.kind === "range" && (e.port === null || e.port === port) && candidates.some((a) => inCidr(a, e.cidr)));
}

export type UrlVerdict = { ok: true; url: URL; port: number } | { ok: false; reason: string };

/**
 * The checks a webhook URL must pass before anything is sent: http(s) only, no credentials in
 * the URL, and a host that is not (by any spelling) a forbidden address unless the operator
 * allowed it. Host names pass here; their addresses are checked when connecting.
 */
export function checkWebhookUrl(text: string, allowlist: WebhookAllowlist): UrlVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "is not a valid URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: "must use http or https" };
  if (url.username || url.password) return { ok: false, reason: "must not carry credentials (use authType)" };
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const refused = checkTargetHost(url.hostname.replace(/^\[|\]$/g, ""), port, allowlist);
  return refused ? { ok: false, reason: refused } : { ok: true, url, port };
}

/**
 * The host part of the rule, for any outbound target (a webhook URL's host, a syslog receiver):
 * why `host` (a name or a literal address, IPv6 without brackets) may not be connected to on
 * `port`, or null when it may. Names pass unless local; their addresses are checked when connecting.
 */
export function checkTargetHost(host: string, port: number, allowlist: WebhookAllowlist): string | null {
  if (allowsHost(allowlist, host, port)) return null;
  const address = parseIp(host);
  if (address) {
    if (allowsAddress(allowlist, address, port)) return null;
    const reason = forbiddenReason(address);
    return reason ? `points at a ${reason} address (${formatIp(address)})` : null;
  }
  if (isLocalName(canonicalHost(host))) return `names a local host (${host})`;
  return null;
}

/**
 * The check at connect time, on the address the socket is about to use (after DNS): forbidden
 * ranges are refused unless the allowlist names the address, its range, or the URL's host name.
 */
export function checkConnectAddress(allowlist: WebhookAllowlist, host: string, address: string, port: number): string | null {
  const bytes = parseIp(address);
  if (!bytes) return `resolved to something that is not an IP address (${address})`;
  if (allowsHost(allowlist, host, port) || allowsAddress(allowlist, bytes, port)) return null;
  const reason = forbiddenReason(bytes);
  return reason ? `resolves to a ${reason} address (${formatIp(bytes)})` : null;
}
