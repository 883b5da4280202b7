import { createHmac, randomBytes } from "node:crypto";

/**
 * Key secrets look like `ck_live_<32 base62>_<6 base62>`: a prefix secret scanners can match,
 * 190 random bits, and a CRC32 checksum that rejects typos and junk before any storage lookup.
 * Only a keyed hash (HMAC-SHA256 with the deployment's key-hash secret) is stored: fast enough to
 * check on every request, useless to whoever steals the database without the secret.
 */
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const pattern = /^ck_([a-z]{2,8})_([0-9A-Za-z]{32})_([0-9A-Za-z]{6})$/;

/** The longest text the pattern accepts (`ck_` + 8 + `_` + 32 + `_` + 6): anything longer is junk, refused unread. */
export const longestKeySecret = 51;

export function generateKeySecret(environment = "live"): string {
  const bytes = randomBytes(32);
  let random = "";
  // 32 draws by rejection sampling: bytes ≥ 248 would bias the alphabet.
  for (let i = 0; random.length < 32; i++) {
    const byte = i < bytes.length ? bytes[i]! : randomBytes(1)[0]!;
    if (byte < 248) random += base62[byte % 62];
  }
  const body = `ck_${environment}_${random}`;
  return `${body}_${checksum(body)}`;
}

/** True when the secret has the right shape and checksum: no storage lookup needed to say no. */
export function isWellFormedKeySecret(secret: string): boolean {
  const match = pattern.exec(secret);
  if (!match) return false;
  // A plain comparison: the checksum is computed from the caller's own characters, so how long it
  // takes to compare tells them nothing they do not have.
  return checksum(secret.slice(0, secret.length - 7)) === match[3];
}

export function hashKeySecret(secret: string, hashSecret: string): string {
  return createHmac("sha256", hashSecret).update(secret).digest("hex");
}

/** What lists show so people can tell keys apart: the prefix and the first random characters. */
export function displayStart(secret: string): string {
  return secret.slice(0, secret.indexOf("_", 3) + 5);
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = "";
  for (let i = 0; i < 6; i++) {
    out = base62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 of ASCII text (a key secret's body, which the pattern keeps to ASCII): a char code is its UTF-8 byte. */
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = crcTable[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
