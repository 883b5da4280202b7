// casekit/postgres: the PostgreSQL storage adapter (node-postgres via drizzle-orm).
export { createPostgresStorage } from "./storage.js";
export type { PostgresStorageOptions } from "./storage.js";
export { resolveMigrationsFolder } from "../shared/migrations-folder.js";
export { createPostgresRateLimitStore } from "./rate-limit-store.js";
export type { PostgresRateLimitStoreOptions } from "./rate-limit-store.js";
