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
}

/** What every service is built from: the ports and the configuration. */
export interface CaseKitDeps {
  storage: Storage;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
  config: CaseKitConfig;
}
