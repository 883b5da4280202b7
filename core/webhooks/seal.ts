import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Sealing of the webhook secrets kept in storage (signing secrets, authConfig values):
 * AES-256-GCM under a key derived with HKDF-SHA256 (info "casekit webhook secrets") from the
 * deployment's key-hash secret, which lives outside the database. A stolen database alone can
 * neither sign deliveries nor call receivers with their credentials.
 *
 * Sealed text: `v1.` + base64url(12-byte nonce ‖ ciphertext ‖ 16-byte tag). The prefix names the
 * scheme so a later one can be introduced while old values still open. Changing the key-hash
 * secret makes every sealed value unreadable (as it invalidates every API key).
 */
export interface Sealer {
  seal(text: string): string;
  /** Throws when the value was not sealed by this deployment's key, or was altered. */
  unseal(sealed: string): string;
}

const version = "v1.";
const nonceBytes = 12;
const tagBytes = 16;
const info = "casekit webhook secrets";

export function createSealer(keyHashSecret: string): Sealer {
  const key = Buffer.from(hkdfSync("sha256", keyHashSecret, Buffer.alloc(0), info, 32));

  return {
    seal(text) {
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
      return version + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
    },
    unseal(sealed) {
      if (!sealed.startsWith(version)) throw new Error("casekit: not a sealed webhook secret");
      const raw = Buffer.from(sealed.slice(version.length), "base64url");
      if (raw.length < nonceBytes + tagBytes) throw new Error("casekit: not a sealed webhook secret");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, nonceBytes));
      decipher.setAuthTag(raw.subarray(raw.length - tagBytes));
      try {
        return Buffer.concat([decipher.update(raw.subarray(nonceBytes, raw.length - tagBytes)), decipher.final()]).toString("utf8");
      } catch {
        // GCM's tag check: another key, or a changed byte. Say which without echoing anything.
        throw new Error("casekit: a sealed webhook secret does not open with this deployment's key (was the key-hash secret changed?)");
      }
    },
  };
}
