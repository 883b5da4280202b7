/**
 * IP address parsing for observables. core/ may not import node:net (eslint.config.js), and isIP
 * would not give the canonical form anyway, so this is a small parser of its own.
 */

const octet = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
/** Dotted quad without leading zeros: `010.0.0.1` is refused, as some tools read it as octal. */
const ipv4Pattern = new RegExp(`^${octet}(?:\\.${octet}){3}$`);

export function isIpv4(text: string): boolean {
  return ipv4Pattern.test(text);
}

/** The eight 16-bit groups of an IPv6 address, or null when `text` is not one (zones refused). */
function ipv6Groups(text: string): number[] | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes(".")) {
        if (!isIpv4(piece)) return null;
        const [a, b, c, d] = piece.split(".").map(Number) as [number, number, number, number];
        groups.push((a << 8) | b, (c << 8) | d);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
        groups.push(parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if (head === null || tail === null) return null;
  // A dotted quad may only end the address.
  if (halves.length === 2 && halves[0]!.includes(".")) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  // "::" stands for at least one group.
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

export function isIpv6(text: string): boolean {
  return ipv6Groups(text) !== null;
}

/**
 * RFC 5952 text of an IPv6 address: lower case, no leading zeros, the longest run of two or more
 * zero groups (the first of equals) as `::`, and IPv4-mapped addresses with a dotted quad.
 */
function formatIpv6(groups: number[]): string {
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return `::ffff:${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
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

/** The canonical text of an IPv4 or IPv6 address, or null when `text` is neither. */
export function canonicalIp(text: string): string | null {
  if (isIpv4(text)) return text;
  const groups = ipv6Groups(text);
  return groups === null ? null : formatIpv6(groups);
}
