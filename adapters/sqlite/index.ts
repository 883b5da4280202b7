// casekit/sqlite: the embedded storage adapter (better-sqlite3 via drizzle-orm migrations).
export { createSqliteStorage } from "./storage.js";
export { backupSqliteFile } from "./backup.js";
export type { SqliteDatabase, SqliteStorageOptions } from "./storage.js";
export type { GroupLimits } from "./group-commit.js";
export { resolveMigrationsFolder } from "../shared/migrations-folder.js";
