/**
 * IP addresses as bytes, for SSRF decisions that do not depend on how an address was spelled.
 * Pure (no node:net): the core decides, the outbound transport supplies the addresses it
 * actually connects to. ipaddr.js (pure, no I/O) names the ranges.
 */
import ipaddr from "ipaddr.js";

/** 4 bytes for IPv4, 16 for IPv6. */
export type IpBytes = Uint8Array;

/**
 * Parses an IPv4 address in the forms URL parsers and `inet_aton` accept: dotted quad, and the
 * shorthands an attacker uses to slip past string checks — fewer parts (`127.1`), hexadecimal
 * (`0x7f.1`), octal (`0177.0.0.1`) and a single number (`2130706433`). Null if it is none of them.
 */
export function parseIpv4(text: string): IpBytes | null {
  const parts = text.split(".");
  if (parts.length === 0 || parts.length > 4) return null;
  if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop(); // a trailing dot is allowed
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIpv4Part(part);
    if (value === null) return null;
    numbers.push(value);
  }
  // Every part but the last is one byte; the last fills the remaining bytes.
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return null;
  const remaining = 4 - numbers.length;
  if (last >= 2 ** (8 * remaining)) return null;
  const bytes = new Uint8Array(4);
  numbers.forEach((n, i) => (bytes[i] = n));
  for (let i = 3, rest = last; i >= numbers.length; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  return bytes;
}

function parseIpv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

/** Parses an IPv6 address (with `::`, an embedded IPv4 tail, and a zone id which is ignored). */
export function parseIpv6(text: string): IpBytes | null {
  let address = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  if (!/^[0-9a-f:.]+$/i.test(address) || !address.includes(":")) return null;

  // An IPv4 tail (`::ffff:127.0.0.1`) becomes the two hex groups it stands for.
  const lastColon = address.lastIndexOf(":");
  const tail = address.slice(lastColon + 1);
  if (tail.includes(".")) {
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(tail)) return null;
    const v4 = tail.split(".").map(Number);
    if (v4.some((n) => n > 255)) return null;
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    address = `${address.slice(0, lastColon + 1)}${hex(v4[0]!, v4[1]!)}:${hex(v4[2]!, v4[3]!)}`;
  }

  const halves = address.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  const words = head.map((g) => parseInt(g, 16));
  const after = rest.map((g) => parseInt(g, 16));
  if (halves.length === 2) {
    const missing = 8 - words.length - after.length;
    if (missing < 1) return null;
    words.push(...new Array<number>(missing).fill(0));
  }
  words.push(...after);
  if (words.length !== 8) return null;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 255;
  });
  return bytes;
}

/** An IP address in any accepted spelling, or null for a host name. */
export function parseIp(text: string): IpBytes | null {
  return parseIpv6(text) ?? parseIpv4(text);
}

/**
 * The IPv4 address an IPv6 one carries and routes to: IPv4-mapped (`::ffff:a.b.c.d`, what a
 * dual-stack socket reports) and the well-known NAT64 prefix (`64:ff9b::/96`, RFC 6052). Other
 * forms that once embedded an address (IPv4-compatible `::a.b.c.d`, local-use NAT64, IPv4-translated)
 * are not read as IPv4: the SSRF check refuses them outright.
 */
export function embeddedIpv4(bytes: IpBytes): IpBytes | null {
  if (bytes.length !== 16) return null;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const mapped = zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const nat64 = bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12);
  return mapped || nat64 ? bytes.slice(12) : null;
}

/**
 * The name ipaddr.js gives the range an address belongs to (IANA's special-purpose registries):
 * `unicast` for an ordinary global address, otherwise `loopback`, `private`, `linkLocal`,
 * `uniqueLocal`, `teredo`, `rfc6052`, `reserved` … A maintained table instead of our own.
 */
export function rangeOf(bytes: IpBytes): string {
  return ipaddr.fromByteArray([...bytes]).range();
}

export interface Cidr {
  bytes: IpBytes;
  prefix: number;
}

/** `10.0.0.0/8`, `fc00::/7`, or a single address (a full-length prefix). Null if malformed. */
export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.split("/");
  if (extra !== undefined || address === undefined) return null;
  const bytes = parseIp(address);
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (prefixText === undefined) return { bytes, prefix: max };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { bytes, prefix } : null;
}

export function inCidr(bytes: IpBytes, cidr: Cidr): boolean {
  if (bytes.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.prefix; bit += 8) {
    const take = Math.min(8, cidr.prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (cidr.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

/**
 * The text of an address: a dotted quad, or RFC 5952 IPv6 (lower case, no leading zeros, the
 * longest run of two or more zero groups, the first of equals, as `::`, IPv4-mapped with a
 * dotted quad), so one address always reads the same in messages and stored observables.
 */
export function formatIp(bytes: IpBytes): string {
  if (bytes.length === 4) return bytes.join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return `::ffff:${bytes.slice(12).join(".")}`;
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
