import type { Clock } from "./ports/clock.js";
import type { PasswordHasher } from "./ports/password-hasher.js";
import type { IdGenerator } from "./ports/ids.js";
import type { Storage } from "./ports/storage.js";

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
}

/** What every service is built from: the ports and the configuration. */
export interface CaseKitDeps {
  storage: Storage;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
  config: CaseKitConfig;
}
