import { domainToASCII } from "node:url";
import { characterCount } from "../schema/common.js";
import { canonicalIp } from "./ip.js";

/**
 * The data types every organization has. Any other name matching `dataTypePattern` is accepted
 * too (an organization's own types: `ja3`, `asn`, `bic` …), stored trimmed and never rewritten.
 */
export const builtInDataTypes = [
  "ip",
  "domain",
  "fqdn",
  "url",
  "uri_path",
  "hash",
  "mail",
  "mail_subject",
  "filename",
  "user-agent",
  "registry",
  "other",
] as const;
export type BuiltInDataType = (typeof builtInDataTypes)[number];

export const dataTypePattern = /^[a-z][a-z0-9_-]{0,63}$/;
export const maxDataLength = 4096;

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

const ok = (value: string): Normalized => ({ ok: true, value });
const refuse = (message: string): Normalized => ({ ok: false, message });

/** Letters, digits and hyphens, 1–63 long, no hyphen at either end. */
const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A host name in lower-case A-labels (IDNs become `xn--…`), without the root's trailing dot, or
 * null. At least two labels, and a top-level label that is not all digits, so an IPv4 address is
 * never taken for a domain.
 */
export function canonicalHostname(text: string): string | null {
  const withoutRoot = text.endsWith(".") ? text.slice(0, -1) : text;
  if (withoutRoot === "" || /[\s/\\@:?#%]/.test(withoutRoot)) return null;
  const ascii = domainToASCII(withoutRoot).toLowerCase();
  if (ascii === "" || ascii.length > 253) return null;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every((l) => label.test(l)) || /^\d+$/.test(labels[labels.length - 1]!)) return null;
  return ascii;
}

const hashLengths = new Set([32, 40, 64, 128]);
/** The characters RFC 5322 allows unquoted in a local part ("atext"). */
const localPart = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const urlSchemes = new Set(["http:", "https:", "ftp:"]);
const hasControlCharacter = (text: string): boolean => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/**
 * Per built-in type: checks the format and returns the one spelling stored. What is rewritten is
 * only what never changes the meaning: case where the protocol ignores it, the IP text form, IDN
 * labels. URLs are checked but kept as sent: rewriting one (paths, encoding) could change evidence.
 */
const formats: Partial<Record<BuiltInDataType, (value: string) => Normalized>> = {
  ip(value) {
    const ip = canonicalIp(value);
    return ip === null ? refuse("is not an IPv4 or IPv6 address") : ok(ip);
  },
  domain(value) {
    const host = canonicalHostname(value);
    return host === null ? refuse("is not a domain name") : ok(host);
  },
  fqdn(value) {
    const host = canonicalHostname(value);
    return host === null ? refuse("is not a fully qualified domain name") : ok(host);
  },
  hash(value) {
    const hex = value.toLowerCase();
    return /^[0-9a-f]+$/.test(hex) && hashLengths.has(hex.length) ? ok(hex) : refuse("is not an MD5, SHA-1, SHA-256 or SHA-512 hex digest");
  },
  mail(value) {
    const lower = value.toLowerCase();
    const at = lower.lastIndexOf("@");
    const local = lower.slice(0, at);
    const host = at > 0 ? canonicalHostname(lower.slice(at + 1)) : null;
    if (at <= 0 || local.length > 64 || !localPart.test(local) || host === null || lower.length > 254) return refuse("is not an email address");
    return ok(`${local}@${host}`);
  },
  url(value) {
    if (/\s/.test(value) || hasControlCharacter(value)) return refuse("is not a URL (it contains spaces or control characters)");
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return refuse("is not a URL");
    }
    if (!urlSchemes.has(parsed.protocol) || parsed.hostname === "") return refuse("must be an http, https or ftp URL with a host");
    return ok(value);
  },
};

/**
 * The stored spelling of `data` for `dataType`: trimmed, then checked and normalised by the
 * type's format where it has one. Types without a format (`other`, `filename`, an organization's
 * own …) keep the trimmed text.
 */
export function normalizeData(dataType: string, data: string): Normalized {
  const trimmed = data.trim();
  if (trimmed.length === 0) return refuse("must not be empty");
  if (characterCount(trimmed) > maxDataLength) return refuse(`must be at most ${maxDataLength} characters`);
  const format = formats[dataType as BuiltInDataType];
  if (!format) return ok(trimmed);
  const normalized = format(trimmed);
  if (normalized.ok && characterCount(normalized.value) > maxDataLength) return refuse(`must be at most ${maxDataLength} characters`);
  return normalized;
}

/**
 * Every stored spelling a search for `data` may mean: the trimmed text, plus its normalised form
 * under each given type (or each built-in one) whose format accepts it. `?data=EVIL.com` thus finds
 * the domain `evil.com` and a filename stored as `EVIL.com`.
 */
export function searchSpellings(data: readonly string[], dataTypes: readonly string[] = builtInDataTypes): string[] {
  const spellings = new Set<string>();
  for (const value of data) {
    const trimmed = value.trim();
    if (trimmed === "") continue;
    spellings.add(trimmed);
    for (const type of dataTypes) {
      const normalized = normalizeData(type, trimmed);
      if (normalized.ok) spellings.add(normalized.value);
    }
  }
  return [...spellings];
}
