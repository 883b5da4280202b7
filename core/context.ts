import type { Clock } from "./ports/clock.js";
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
}

/** What every service is built from: the ports and the configuration. */
export interface CaseKitDeps {
  storage: Storage;
  clock: Clock;
  ids: IdGenerator;
  config: CaseKitConfig;
}
