import type { Scope } from "../access/scopes.js";

export const keyTiers = ["basic", "standard", "professional", "enterprise", "unlimited"] as const;
export type KeyTier = (typeof keyTiers)[number];

export const keyStatuses = ["active", "suspended", "revoked"] as const;
export type KeyStatus = (typeof keyStatuses)[number];

/** An API key as stored and returned: never the secret, only a display prefix and a hash. */
export interface ApiKey {
  id: string;
  organizationId: string;
  /** The owner: the user whose status and role bound the key. */
  userId: string;
  name: string;
  description: string | null;
  tier: KeyTier;
  scopes: Scope[];
  tlpClearance: number;
  status: KeyStatus;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** The first characters of the secret, for people to recognise a key in a list. */
  start: string;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
}

export interface StoredApiKey extends ApiKey {
  /** Keyed hash of the secret (core/keys/secret.ts). */
  hash: string;
}
