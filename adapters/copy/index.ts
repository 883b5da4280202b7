// casekit/copy: a SQLite deployment carried into PostgreSQL (`casekit copy`). Needs both drivers,
// better-sqlite3 and pg, hence an entry point of its own. Named exports only.
export { CopyRefusedError, copySqliteToPostgres } from "./sqlite-to-postgres.js";
export type { CopyOptions, CopyProgress, CopyResult } from "./sqlite-to-postgres.js";
