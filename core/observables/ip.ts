/**
 * IP addresses as observables store them: a strict dotted quad (no leading zeros: `010.0.0.1` is
 * refused, as some tools read it as octal, and none of the SSRF parser's shorthands), or IPv6
 * without a zone id, in its RFC 5952 text so that one address deduplicates as one value.
 */
import { formatIp, parseIpv6 } from "../net/ip.js";

const octet = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const ipv4Pattern = new RegExp(`^${octet}(?:\\.${octet}){3}$`);

export function isIpv4(text: string): boolean {
  return ipv4Pattern.test(text);
}

function ipv6Bytes(text: string): Uint8Array | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return null;
  const tail = text.slice(text.lastIndexOf(":") + 1);
  if (tail.includes(".") && !isIpv4(tail)) return null;
  return parseIpv6(text);
}

export function isIpv6(text: string): boolean {
  return ipv6Bytes(text) !== null;
}

/** The canonical text of an IPv4 or IPv6 address, or null when `text` is neither. */
export function canonicalIp(text: string): string | null {
  if (isIpv4(text)) return text;
  const bytes = ipv6Bytes(text);
  return bytes === null ? null : formatIp(bytes);
}
