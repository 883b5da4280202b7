import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../log/chain.js";
import type { AuditCheckpoint } from "./types.js";

/**
 * Checkpoints are signed with HMAC-SHA256 under a key derived from the deployment's key-hash
 * secret (which never enters the database): whoever can write to the database but does not hold
 * the secret cannot forge a checkpoint to hide deleted events behind.
 */
function checkpointKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("casekit audit checkpoint v1").digest();
}

const signed = (checkpoint: Omit<AuditCheckpoint, "signature">) => canonicalJson([checkpoint.organizationId, checkpoint.seq, checkpoint.hash, checkpoint.at]);

export function signCheckpoint(checkpoint: Omit<AuditCheckpoint, "signature">, secret: string): AuditCheckpoint {
  return { ...checkpoint, signature: createHmac("sha256", checkpointKey(secret)).update(signed(checkpoint)).digest("hex") };
}

export function checkpointSignatureValid(checkpoint: AuditCheckpoint, secret: string): boolean {
  const expected = Buffer.from(signCheckpoint(checkpoint, secret).signature, "hex");
  const given = Buffer.from(checkpoint.signature, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
