import type { Clock } from "./ports/clock.js";
import type { PasswordHasher } from "./ports/password-hasher.js";
import type { IdGenerator } from "./ports/ids.js";
import type { Storage } from "./ports/storage.js";
import type { DefinitionsCache } from "./definitions/cache.js";

export interface CaseKitConfig {
  /**
   * Secret for the keyed hash of API keys. Changing it invalidates every key, so set it once
   * per deployment and keep it out of the database.
   */
  keyHashSecret: string;
  /** Environment label in new key secrets: `ck_<environment>_…`. */
  keyEnvironment: string;
  /**
   * Where webhooks may point although the SSRF policy forbids it (`CASEKIT_WEBHOOK_ALLOWLIST`):
   * comma-separated host names, IP addresses or CIDR ranges, each optionally with `:port`, e.g.
   * `127.0.0.1:8787,10.1.0.0/16`. Unset: nothing is allowed beyond public addresses.
   */
  webhookAllowlist?: string;
  /**
   * Most records one bulk request may touch: the ids it names, or what its selectAll matches,
   * counted before anything changes (above it: bulk_too_large, 400). Default 10 000
   * (`defaultBulkMaxRows`); `CASEKIT_BULK_MAX_ROWS` for `casekit serve`.
   */
  bulkMaxRows?: number;
  /**
   * Audit events older than this many days are pruned behind a signed checkpoint, unless the
   * organization's policy sets its own `auditRetentionDays`; unset or 0 keeps them
   * (`CASEKIT_AUDIT_RETENTION_DAYS` for `casekit serve` and `casekit worker`).
   */
  auditRetentionDays?: number;
}

/** What every service is built from: the ports, the configuration and the kit's definitions cache. */
export interface CaseKitDeps {
  storage: Storage;
  /** Every read of an organization's lifecycles, custom field definitions and case types goes through it. */
  definitions: DefinitionsCache;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
  config: CaseKitConfig;
}
