/**
 * A separate process for the SQLite tests: waits until the given instant (so several processes
 * start migrating at the same moment), migrates the database file, and prints "migrated".
 * Usage: node --import tsx migrate-process.ts <file> <epoch-ms>
 */
import { createSqliteStorage } from "../../adapters/sqlite/index.js";

const [file, startAt] = process.argv.slice(2);
if (!file || !startAt) throw new Error("usage: migrate-process.ts <file> <epoch-ms>");
const storage = createSqliteStorage({ path: file });
while (Date.now() < Number(startAt)) {
  // spin: a timer would wake each process at a slightly different moment
}
await storage.migrate();
await storage.close();
process.stdout.write("migrated\n");
