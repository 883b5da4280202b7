import type { Clock } from "./clock.js";

/** Prefixes tell a reader what an id points at (conventions, "Identifiers"). */
export type IdPrefix = "org" | "user" | "key" | "case" | "evt" | "aud" | "req" | (string & {});

/** Produces opaque, prefixed ids that sort by creation time (within one generator, strictly). */
export interface IdGenerator {
  next(prefix: IdPrefix): string;
}

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case: sorts like the numbers

/**
 * ULID-shaped ids: 48 bits of milliseconds from the clock, then 80 random bits. Within one
 * millisecond the random part is incremented, so ids from one generator are strictly increasing
 * even under a frozen test clock; keyset pagination relies on that order.
 */
export function createIdGenerator(clock: Clock, randomBytes: (n: number) => Uint8Array = pooledRandomBytes): IdGenerator {
  let lastTime = -1;
  let lastTimeText = "";
  const last = new Uint8Array(10);

  return {
    next(prefix) {
      const time = Math.max(clock.now().getTime(), lastTime);
      if (time === lastTime) {
        increment(last);
      } else {
        last.set(randomBytes(10));
        lastTime = time;
        lastTimeText = encodeTime(time);
      }
      return `${prefix}_${lastTimeText}${encodeRandom(last)}`;
    },
  };
}

/** Bytes drawn from the system's CSPRNG in one call, handed out ten at a time. */
const poolSize = 8192;
const pool = new Uint8Array(poolSize);
let poolOffset = poolSize;

/**
 * Random bytes without a system call per id: one `getRandomValues` fills 8 KiB (819 ids' worth),
 * and each call takes the next unused slice. Bytes are never handed out twice; the slice is a view
 * the caller copies at once (`last.set`), before the pool can be refilled.
 */
function pooledRandomBytes(n: number): Uint8Array {
  if (n > poolSize) return crypto.getRandomValues(new Uint8Array(n));
  if (poolOffset + n > poolSize) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return slice;
}

function encodeTime(ms: number): string {
  let out = "";
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = alphabet[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** 80 bits as 16 base32 digits, most significant first. Plain numbers, not BigInt: bulk operations make ids by the hundred thousand. */
function encodeRandom(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(buffer >> bits) & 31];
    }
  }
  return out;
}

function increment(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === 255) {
      bytes[i] = 0;
    } else {
      bytes[i] = (bytes[i] ?? 0) + 1;
      return;
    }
  }
}
