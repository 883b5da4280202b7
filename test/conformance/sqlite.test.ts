/**
 * The storage conformance suite on SQLite: on a fresh in-memory database per test, and again on
 * a fresh database file per test (WAL). Then what only the SQLite adapter has: pragmas, migrating
 * one file from several connections and processes, the guards around units of work, close(), the
 * query plans of case lists, and where the migrations folder is found.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Storage, UnitOfWork } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import { createSqliteStorage, resolveMigrationsFolder } from "../../adapters/sqlite/index.js";
import { defaultReaderCount } from "../../adapters/sqlite/readers.js";
import * as schema from "../../adapters/sqlite/schema.js";
import { listQuery, resourceSql } from "../../adapters/declare/sql.js";
import { sqliteDialect } from "../../adapters/sqlite/dialect.js";
import type { FilterValues } from "../../adapters/declare/resource.js";
import { apiKeyResource } from "../../adapters/resources/api-keys.js";
import { auditResource } from "../../adapters/resources/audit.js";
import { auditCheckpointResource } from "../../adapters/resources/audit-checkpoints.js";
import { caseResource, caseSqlFor } from "../../adapters/resources/cases.js";
import { organizationResource } from "../../adapters/resources/organizations.js";
import { sessionByTokenHashSql, sessionResource } from "../../adapters/resources/sessions.js";
import { signInThrottleResource } from "../../adapters/resources/sign-in-throttles.js";
import { teamResource } from "../../adapters/resources/teams.js";
import { tlpAuditResource, tlpAuditSqlFor } from "../../adapters/resources/tlp-audit.js";
import { userByEmailSql, userResource } from "../../adapters/resources/users.js";
import { eventResource } from "../../adapters/resources/events.js";
import { defaultOrganizationPolicy } from "../../core/organizations/policy.js";
import { verifyTlpChain } from "../../core/tlp/chain.js";
import { createFixtures, sleep } from "./fixtures.js";
import { auditGuards, auditGuardTriggers, sqliteRawAccess } from "./sqlite-raw.js";
import type { RawAccess } from "./index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { migratedFiles, migratedMemoryDatabase } from "../helpers/migrated-sqlite.js";
import { describeStorage } from "./index.js";

const scratch = mkdtempSync(join(tmpdir(), "casekit-sqlite-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(scratch, `db-${++files}.sqlite`);
/** How many migrations ship (drizzle's journal). */
const shippedMigrations = (
  JSON.parse(readFileSync(join(resolveMigrationsFolder("sqlite"), "meta", "_journal.json"), "utf8")) as { entries: unknown[] }
).entries.length;

/**
 * The connections behind the suite's storages. In memory, the storage borrows the connection the
 * raw access uses (an in-memory database has no other way in); on files, the storage owns its
 * connection and the raw access opens a second one, as someone tampering from outside would.
 */
const suiteConnections = new Map<Storage, { raw: () => Database.Database; close: () => void }>();

/** Fresh migrated files for the suite, copies of one migrated once (test/helpers/migrated-sqlite.ts). */
const migratedFile = migratedFiles(join(scratch, "template.sqlite"));

async function suiteStorage(path: string): Promise<Storage> {
  if (path === ":memory:") {
    const db = await migratedMemoryDatabase();
    const storage = createSqliteStorage({ database: db });
    suiteConnections.set(storage, { raw: () => db, close: () => db.close() });
    return storage;
  }
  await migratedFile(path);
  const storage = createSqliteStorage({ path });
  let second: Database.Database | undefined;
  suiteConnections.set(storage, {
    raw: () => {
      second ??= new Database(path);
      second.pragma("busy_timeout = 5000");
      return second;
    },
    close: () => second?.close(),
  });
  return storage;
}

const suiteOptions = {
  raw: (storage: Storage): RawAccess => sqliteRawAccess(suiteConnections.get(storage)!.raw()),
  passwordHasher: fastPasswordHasher,
};
const closeSuiteStorage = async (storage: Storage) => {
  await storage.close();
  suiteConnections.get(storage)?.close();
  suiteConnections.delete(storage);
};

describeStorage("sqlite (in memory)", () => suiteStorage(":memory:"), closeSuiteStorage, suiteOptions);
describeStorage("sqlite (file, WAL)", () => suiteStorage(freshFile()), closeSuiteStorage, suiteOptions);

describe("sqlite adapter", () => {
  const opened: Storage[] = [];
  const handles: Database.Database[] = [];
  const open = (path: string) => {
    const storage = createSqliteStorage({ path });
    opened.push(storage);
    return storage;
  };
  const handle = (path: string, options?: Database.Options) => {
    const db = new Database(path, options);
    handles.push(db);
    return db;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    for (const db of handles.splice(0)) db.close();
  });

  describe("connection", () => {
    it("a file database gets WAL, foreign keys, a 5 s busy timeout and synchronous=NORMAL", async () => {
      const db = handle(freshFile());
      const storage = createSqliteStorage({ database: db });
      await storage.migrate();
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
      expect(db.pragma("synchronous", { simple: true })).toBe(1);
      await storage.close();
      expect(db.open).toBe(true); // a borrowed connection stays open
    });

    it("stats() reports the WAL file's size, the reader connections and the records kept parsed on a file, and none in memory", async () => {
      const path = freshFile();
      const storage = open(path);
      await storage.migrate();
      const f = createFixtures();
      const organization = f.organization();
      const team = f.team(organization.id);
      await storage.transaction(async (tx) => {
        await tx.organizations.insert(organization);
        await tx.teams.insert(team);
      });
      // No read has run yet: no reader connection is open (the pool opens all of them at the first read).
      expect(storage.stats?.()).toEqual({ walBytes: statSync(`${path}-wal`).size, readers: { open: 0, busy: 0 }, parsedRecords: { records: 0, chars: 0 } });
      await storage.read((tx) => tx.teams.findById(organization.id, team.id));
      expect(storage.stats?.().readers).toEqual({ open: defaultReaderCount, busy: 0 });
      expect(storage.stats?.().parsedRecords).toEqual({ records: 0, chars: 0 });
      // Read again, the team is kept parsed beside its text.
      await storage.read((tx) => tx.teams.findById(organization.id, team.id));
      expect(storage.stats?.().parsedRecords).toEqual({ records: 1, chars: expect.any(Number) });
      expect(storage.stats?.().parsedRecords?.chars).toBeGreaterThan(0);
      expect(storage.stats?.().walBytes).toBeGreaterThan(0);
      const memory = open(":memory:");
      await memory.migrate();
      expect(memory.stats?.()).toEqual({});
    });

    it("migrate twice, then from a second connection to the same file, keeps one schema and the data", async () => {
      const path = freshFile();
      const first = open(path);
      await first.migrate();
      await first.migrate();
      const f = createFixtures();
      const org = f.organization();
      await first.transaction((tx) => tx.organizations.insert(org));

      const second = open(path);
      await second.migrate();
      expect(await second.read((tx) => tx.organizations.findById(org.id))).toStrictEqual(org);
      await first.close();
      await second.close();

      const reopened = open(path);
      await reopened.migrate();
      expect(await reopened.read((tx) => tx.organizations.findById(org.id))).toStrictEqual(org);
      const applied = handle(path).prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
      expect(applied.n).toBe(shippedMigrations);
    });

    it("a migration racing another connection's (applied just before this one takes the write lock) still succeeds, applying nothing twice", async () => {
      const path = freshFile();
      const migrationsFolder = resolveMigrationsFolder("sqlite");
      const other = handle(path);
      let raced = false;
      // Another "process" migrates the file (with drizzle's own migrator) at the worst moment:
      // just before this connection takes the write lock and reads which migrations are applied.
      const db = handle(path, {
        verbose: (statement) => {
          if (!raced && String(statement).trim() === "BEGIN IMMEDIATE") {
            raced = true;
            migrate(drizzle({ client: other }), { migrationsFolder });
          }
        },
      });
      const storage = createSqliteStorage({ database: db });
      await storage.migrate();
      expect(raced).toBe(true);
      const applied = db.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
      expect(applied.n).toBe(shippedMigrations);
      await storage.close();
    });

    it("several processes migrating one new file at the same moment all succeed", { timeout: 60_000 }, async () => {
      const path = freshFile();
      const script = fileURLToPath(new URL("./migrate-process.ts", import.meta.url));
      const startAt = Date.now() + 2_500;
      const run = () =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ["--import", "tsx", script, path, String(startAt)], { stdio: ["ignore", "pipe", "pipe"] });
          let out = "";
          child.stdout.on("data", (chunk) => (out += String(chunk)));
          child.stderr.on("data", (chunk) => (out += String(chunk)));
          child.on("close", (code) => resolve(`${code}: ${out.trim()}`));
        });
      const outcomes = await Promise.all([run(), run(), run(), run()]);
      expect(outcomes).toEqual(Array(4).fill("0: migrated"));
      const storage = open(path);
      await storage.migrate();
      await expect(storage.ping()).resolves.toBeUndefined();
    });

    it("the drizzle schema and the shared row shapes name the same columns", () => {
      const names = (table: Parameters<typeof getTableConfig>[0]) => getTableConfig(table).columns.map((c) => c.name).sort();
      const fields = (resource: { fields: readonly { name: string }[] }) => resource.fields.map((f) => f.name);
      expect(names(schema.organizations)).toEqual([...fields(organizationResource), "case_seq", "tlp_audit_seq", "tlp_audit_hash", "audit_seq", "audit_hash", "audit_legacy_seq", "access_version", "definitions_version", "active_webhooks"].sort());
      expect(names(schema.users)).toEqual(fields(userResource).sort());
      expect(names(schema.apiKeys)).toEqual(fields(apiKeyResource).sort());
      // Cases are declared storedRecord: SQLite keeps the record's text beside the columns.
      expect(names(schema.cases)).toEqual([...caseResource.fields.map((f) => f.name), "record_json"].sort());
      expect(names(schema.auditLog)).toEqual(auditResource.fields.map((f) => f.name).sort());
      expect(names(schema.auditCheckpoints)).toEqual(auditCheckpointResource.fields.map((f) => f.name).sort());
      expect(names(schema.events)).toEqual(eventResource.fields.map((f) => f.name).sort());
      expect(names(schema.teams)).toEqual(teamResource.fields.map((f) => f.name).sort());
      expect(names(schema.tlpAuditLog)).toEqual(tlpAuditResource.fields.map((f) => f.name).sort());
      expect(names(schema.sessions)).toEqual(fields(sessionResource).sort());
      expect(names(schema.signInThrottles)).toEqual(fields(signInThrottleResource).sort());
    });
  });

  describe("migrations", () => {
    /** A copy of the shipped migrations folder holding only the first `count` migrations. */
    function firstMigrations(count: number): string {
      const source = resolveMigrationsFolder("sqlite");
      const target = join(scratch, `migrations-first-${count}-${++files}`);
      cpSync(source, target, { recursive: true });
      const journalPath = join(target, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
      const kept = journal.entries.slice(0, count);
      const keptTags = new Set(kept.map((e) => e.tag));
      for (const file of readdirSync(target)) {
        if (file.endsWith(".sql") && !keptTags.has(file.slice(0, -4))) rmSync(join(target, file));
      }
      writeFileSync(journalPath, JSON.stringify({ ...journal, entries: kept }));
      return target;
    }

    it("once every migration has run, tlp_audit_log and audit_log have their append-only triggers (a rebuilt table would have lost them)", () => {
      const db = handle(":memory:");
      migrate(drizzle({ client: db }), { migrationsFolder: resolveMigrationsFolder("sqlite") });
      const guards = auditGuards(db);
      expect(guards.map((g) => g.name)).toEqual([...auditGuardTriggers]);
      expect(guards.find((g) => g.name === "tlp_audit_log_no_update")?.sql).toMatch(/BEFORE UPDATE ON `tlp_audit_log`[\s\S]*RAISE\(ABORT, '[^']*append-only/);
      expect(guards.find((g) => g.name === "tlp_audit_log_no_delete")?.sql).toMatch(/BEFORE DELETE ON `tlp_audit_log`[\s\S]*RAISE\(ABORT, '[^']*append-only/);
      expect(guards.find((g) => g.name === "audit_log_no_update")?.sql).toMatch(/BEFORE UPDATE ON `audit_log`[\s\S]*RAISE\(ABORT, '[^']*append-only/);
      expect(guards.find((g) => g.name === "audit_log_no_delete")?.sql).toMatch(/BEFORE DELETE ON `audit_log`[\s\S]*audit_checkpoints[\s\S]*RAISE\(ABORT, '[^']*append-only/);
    });

    it("the refusal is an ordinary error, not a conflict, and rolls back the unit it happens in", async () => {
      const db = handle(":memory:");
      const storage = createSqliteStorage({ database: db });
      await storage.migrate();
      const f = createFixtures();
      const org = f.organization();
      const entry = f.tlpEntry(org.id, { seq: 0, hash: "" });
      await storage.transaction(async (tx) => {
        await tx.organizations.insert(org);
        await tx.tlpAudit.append(entry);
      });
      const error = (() => {
        try {
          db.prepare("UPDATE tlp_audit_log SET outcome = 'denied'").run();
          return null;
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(Database.SqliteError);
      expect((error as { code?: unknown }).code).toBe("SQLITE_CONSTRAINT_TRIGGER");
      expect(isCaseKitError(error)).toBe(false);
      expect(await storage.read((tx) => tx.tlpAudit.chain(org.id, 0, 10))).toStrictEqual([entry]);
      await storage.close();
    });

    it("a database from migration 0000, with data, upgrades: default policy, empty chain head, counters kept", async () => {
      const path = freshFile();
      const old = handle(path);
      migrate(drizzle({ client: old }), { migrationsFolder: firstMigrations(1) });
      old
        .prepare("INSERT INTO organizations (id, name, case_seq, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
        .run("org_0000000000000000000000000a", "Old Org", 41, "2025-01-01T00:00:00.000Z", "2025-01-02T00:00:00.000Z");
      old.close();

      const storage = open(path);
      await storage.migrate();
      expect(await storage.read((tx) => tx.organizations.findById("org_0000000000000000000000000a"))).toStrictEqual({
        id: "org_0000000000000000000000000a",
        name: "Old Org",
        policy: defaultOrganizationPolicy,
        createdAt: "2025-01-01T00:00:00.000Z",
        updatedAt: "2025-01-02T00:00:00.000Z",
      });
      expect(await storage.read((tx) => tx.tlpAudit.head("org_0000000000000000000000000a"))).toEqual({ seq: 0, hash: "" });
      expect(await storage.transaction((tx) => tx.organizations.nextCaseNumber("org_0000000000000000000000000a"))).toBe(42);
      const f = createFixtures();
      const entry = f.tlpEntry("org_0000000000000000000000000a", { seq: 0, hash: "" });
      await storage.transaction((tx) => tx.tlpAudit.append(entry));
      expect(verifyTlpChain(await storage.read((tx) => tx.tlpAudit.chain("org_0000000000000000000000000a", 0, 10)))).toEqual({
        ok: true,
        checked: 1,
      });
    });

    it("schema.ts and the migration snapshots agree: drizzle-kit generate finds nothing to do", { timeout: 60_000 }, async () => {
      const name = `regenerate-${++files}`;
      const out = join(scratch, name);
      cpSync(resolveMigrationsFolder("sqlite"), out, { recursive: true });
      const before = readdirSync(out).sort();
      const bin = fileURLToPath(new URL("../../node_modules/drizzle-kit/bin.cjs", import.meta.url));
      const schemaFile = fileURLToPath(new URL("../../adapters/sqlite/schema.ts", import.meta.url));
      const output = await new Promise<string>((resolve) => {
        // drizzle-kit takes --out relative to the working directory.
        const child = spawn(process.execPath, [bin, "generate", "--dialect", "sqlite", "--schema", schemaFile, "--out", name], {
          cwd: scratch,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let text = "";
        child.stdout.on("data", (chunk) => (text += String(chunk)));
        child.stderr.on("data", (chunk) => (text += String(chunk)));
        child.on("close", (code) => resolve(`${code}: ${text}`));
      });
      expect(output).toMatch(/^0: [\s\S]*No schema changes/);
      expect(output).not.toMatch(/error/i);
      expect(readdirSync(out).sort()).toEqual(before);
    });
  });

  describe("raw access for the suite", () => {
    it("disabling and enabling the guards from a second connection to a file restores them exactly", async () => {
      const path = freshFile();
      const storage = open(path);
      await storage.migrate();
      const second = handle(path);
      const raw = sqliteRawAccess(second);
      const before = auditGuards(second);
      await raw.disableAuditGuards();
      expect(auditGuards(second)).toEqual([]);
      await raw.disableAuditGuards();
      await raw.enableAuditGuards();
      await raw.enableAuditGuards();
      expect(auditGuards(second)).toEqual(before);
      // The storage's own connection, with statements prepared before, sees the guards again.
      const f = createFixtures();
      const org = f.organization();
      await storage.transaction(async (tx) => {
        await tx.organizations.insert(org);
        await tx.tlpAudit.append(f.tlpEntry(org.id, await tx.tlpAudit.head(org.id)));
      });
      await expect(raw.exec("DELETE FROM tlp_audit_log WHERE organization_id = ?", [org.id])).rejects.toThrow(/append-only/);
    });
  });

  describe("units of work", () => {
    let storage: Storage;
    beforeEach(async () => {
      storage = open(":memory:");
      await storage.migrate();
    });

    it("a tx kept after its unit ended is refused, so it cannot write into the next unit", async () => {
      let kept: UnitOfWork | undefined;
      await storage.transaction(async (tx) => {
        kept = tx;
      });
      const f = createFixtures();
      await expect(kept!.organizations.insert(f.organization())).rejects.toThrow(/unit of work has ended/);
      await expect(kept!.organizations.findById("org_x")).rejects.toThrow(/unit of work has ended/);
    });

    it("writes inside read() are refused", async () => {
      const f = createFixtures();
      await expect(storage.read((tx) => tx.organizations.insert(f.organization()))).rejects.toThrow(/read-only/);
    });

    it("only unique violations become conflicts: a dangling reference fails, but not as a conflict", async () => {
      const f = createFixtures();
      const error = await storage.transaction((tx) => tx.users.insert(f.user("org_doesnotexist00000000000000"))).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(isCaseKitError(error)).toBe(false);
    });

    it("nextCaseNumber of an unknown organization is not_found", async () => {
      await expect(storage.transaction((tx) => tx.organizations.nextCaseNumber("org_doesnotexist00000000000000"))).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("close() lets queued units finish, then refuses new work", async () => {
      const f = createFixtures();
      const org = f.organization();
      const unit = storage.transaction(async (tx) => {
        await sleep(5);
        await tx.organizations.insert(org);
        return "done";
      });
      const queuedRead = storage.read((tx) => tx.organizations.findById(org.id));
      const closed = storage.close();
      await expect(unit).resolves.toBe("done");
      expect(await queuedRead).toStrictEqual(org);
      await closed;
      await expect(storage.transaction(async () => 1)).rejects.toMatchObject({ code: "unavailable" });
      await expect(storage.read(async () => 1)).rejects.toMatchObject({ code: "unavailable" });
      await expect(storage.ping()).rejects.toMatchObject({ code: "unavailable" });
      await expect(storage.close()).resolves.toBeUndefined();
    });
  });

  describe("case list query plans", () => {
    const plan = (filter: FilterValues<typeof caseResource>, beforeId?: string) => {
      const db = handle(":memory:");
      migrate(drizzle({ client: db }), { migrationsFolder: resolveMigrationsFolder("sqlite") });
      const query = listQuery(caseResource, sqliteDialect, "org_1", filter, { limit: 50, order: "desc", after: beforeId })!;
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${query.text}`).all(...query.params) as { detail: string }[];
      return rows.map((r) => r.detail).join("\n");
    };

    it("an unfiltered page walks (organization_id, id) without sorting", () => {
      const detail = plan({ maxTlp: 4 }, "case_zzzzzzzzzzzzzzzzzzzzzzzzzz");
      expect(detail).toMatch(/USING INDEX cases_organization_id_idx/);
      expect(detail).not.toMatch(/TEMP B-TREE/);
    });

    it.each([
      ["statusValue", { statusValue: ["new" as const] }, "cases_organization_id_status_value_idx"],
      ["severity", { severity: [3] }, "cases_organization_id_severity_idx"],
      ["assigneeId", { assigneeId: ["user_1"] }, "cases_organization_id_assignee_id_idx"],
    ])("a one-value %s filter walks its own index without sorting", (_name, filter, index) => {
      const detail = plan({ maxTlp: 4, ...filter });
      expect(detail).toMatch(new RegExp(`USING INDEX ${index}`));
      expect(detail).not.toMatch(/TEMP B-TREE/);
    });
  });

  describe("record list and lookup query plans", () => {
    const plan = (query: { text: string; params: unknown[] }) => {
      const db = handle(":memory:");
      migrate(drizzle({ client: db }), { migrationsFolder: resolveMigrationsFolder("sqlite") });
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${query.text}`).all(...query.params) as { detail: string }[];
      return rows.map((r) => r.detail).join("\n");
    };
    const before = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";

    it.each([
      ["users", listQuery(userResource, sqliteDialect, "org_1", {}, { limit: 50, order: "desc", after: before })!, "users_organization_id_idx"],
      ["users by status", listQuery(userResource, sqliteDialect, "org_1", { status: ["active"] }, { limit: 50, order: "desc" })!, "users_organization_id_idx"],
      ["API keys", listQuery(apiKeyResource, sqliteDialect, "org_1", {}, { limit: 50, order: "desc", after: before })!, "api_keys_organization_id_idx"],
      [
        "API keys of several tiers",
        listQuery(apiKeyResource, sqliteDialect, "org_1", { tier: ["basic", "standard"] }, { limit: 50, order: "desc" })!,
        "api_keys_organization_id_idx",
      ],
      ["teams", listQuery(teamResource, sqliteDialect, "org_1", {}, { limit: 50, order: "desc", after: before })!, "teams_organization_id_idx"],
      ["TLP audit entries", listQuery(tlpAuditResource, sqliteDialect, "org_1", {}, { limit: 50, order: "desc", after: before })!, "tlp_audit_log_organization_id_idx"],
      [
        "TLP audit entries of one resource",
        listQuery(tlpAuditResource, sqliteDialect, "org_1", { resourceId: "case_1" }, { limit: 50, order: "desc", after: before })!,
        "tlp_audit_log_organization_id_resource_id_idx",
      ],
      [
        "TLP audit entries of an actor in a time range",
        listQuery(tlpAuditResource, sqliteDialect, "org_1", { actorId: "user_1", from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z" }, { limit: 50, order: "desc" })!,
        "tlp_audit_log_organization_id_idx",
      ],
    ])("a page of %s walks its index newest first without sorting", (_name, query, index) => {
      const detail = plan(query);
      expect(detail).toMatch(new RegExp(`USING (COVERING )?INDEX ${index}\\b`));
      expect(detail).not.toMatch(/TEMP B-TREE/);
    });

    it("the chain walks (organization_id, seq) in order", () => {
      const detail = plan({ text: tlpAuditSqlFor(sqliteDialect).chain, params: ["org_1", 10, 1000] });
      expect(detail).toMatch(/USING INDEX tlp_audit_log_organization_id_seq_unique/);
      expect(detail).not.toMatch(/TEMP B-TREE/);
    });

    it.each([
      ["a user by email", userByEmailSql(sqliteDialect), ["a@example.test"], /USING INDEX users_email_unique/],
      ["a session by token hash", sessionByTokenHashSql(sqliteDialect), ["h"], /USING INDEX sessions_token_hash_unique/],
      ["a shared case", caseSqlFor(sqliteDialect).sharedWith, ["case_1", "org_1", JSON.stringify(["org_1"])], /USING INDEX sqlite_autoindex_cases_1/],
      ["a sign-in counter", resourceSql(signInThrottleResource, sqliteDialect).byId, ["a@example.test"], /USING INDEX sqlite_autoindex_sign_in_throttles_1/],
    ])("%s is one index lookup", (_name, text, params, index) => {
      const detail = plan({ text, params });
      expect(detail).toMatch(index);
      expect(detail).not.toMatch(/SCAN (users|sessions|cases|sign_in_throttles)\b/);
    });
  });

  describe("migrations folder", () => {
    it("is found from source", () => {
      const folder = resolveMigrationsFolder("sqlite");
      expect(folder).toBe(fileURLToPath(new URL("../../adapters/sqlite/migrations", import.meta.url)));
      expect(resolveMigrationsFolder("postgres")).toBe(fileURLToPath(new URL("../../adapters/postgres/migrations", import.meta.url)));
    });

    it("is found from the built package, inlined in an entry or in a shared chunk", () => {
      const pkg = join(scratch, "built-package");
      const migrations = join(pkg, "adapters", "sqlite", "migrations");
      mkdirSync(join(migrations, "meta"), { recursive: true });
      writeFileSync(join(migrations, "meta", "_journal.json"), "{}");
      expect(resolveMigrationsFolder("sqlite", pathToFileURL(join(pkg, "dist", "adapters", "sqlite", "index.js")))).toBe(migrations);
      expect(resolveMigrationsFolder("sqlite", pathToFileURL(join(pkg, "dist", "chunk-ABC123.js")).href)).toBe(migrations);
      expect(resolveMigrationsFolder("sqlite", join(pkg, "dist", "adapters", "sqlite", "index.js"))).toBe(migrations);
    });

    it("throws, naming where it looked, when the folder is missing or the dialect is not a name", () => {
      const elsewhere = pathToFileURL(join(scratch, "nowhere", "dist", "index.js"));
      expect(() => resolveMigrationsFolder("sqlite", elsewhere)).toThrow(/cannot find the sqlite migrations; looked in/);
      expect(() => resolveMigrationsFolder("../etc")).toThrow(/not a dialect name/);
    });
  });
});
