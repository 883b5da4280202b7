/**
 * The storage conformance suite against a real PostgreSQL server, plus what only PostgreSQL has:
 * schema isolation, migrations racing from several pools, borrowed pools, session time zones.
 *
 * Server: CASEKIT_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test). The file
 * works in a schema of its own with a random name, created here and dropped in afterAll, so runs
 * never see each other. With CI=true an unreachable server fails the run; elsewhere the file is
 * skipped, saying why.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Storage } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { resolveMigrationsFolder } from "../../adapters/shared/migrations-folder.js";
import { createFixtures, sleep } from "./fixtures.js";
import type { RawAccess } from "./index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { describeStorage } from "./index.js";

const url = process.env.CASEKIT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const inCi = process.env.CI === "true";

/** The reason the server cannot be used, or null when it answers. */
async function unreachableReason(): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

function withoutPassword(connectionString: string): string {
  try {
    const parsed = new URL(connectionString);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable CASEKIT_TEST_POSTGRES_URL)";
  }
}

const unreachable = await unreachableReason();
if (unreachable !== null && !inCi) {
  console.warn(
    `[postgres conformance] SKIPPED: PostgreSQL at ${withoutPassword(url)} is unreachable (${unreachable}). ` +
      "Start a server or set CASEKIT_TEST_POSTGRES_URL; with CI=true this is a failure, not a skip.",
  );
}

/** This file's schema; every storage below lives in it or in a schema named after it. */
const fileSchema = `casekit_test_${randomBytes(6).toString("hex")}`;
/** An independent connection for set-up and for looking at the database behind the adapter's back. */
let admin: pg.Pool;
/** The suite's raw access connections, whose search_path is `fileSchema`. */
let suiteRaw: pg.Pool | undefined;
const extraSchemas: string[] = [];

/** A fresh schema named after this file's, dropped with it in afterAll. */
function freshSchema(label: string): string {
  const name = `${fileSchema}_${label}_${extraSchemas.length}`;
  extraSchemas.push(name);
  return name;
}

/** Polls `condition` every few milliseconds until it holds (or five seconds pass). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(5)) {
    if (await condition()) return;
  }
  throw new Error("condition not met within 5 s");
}

/** The append-only tables, whose triggers refuse DELETE. */
const guarded = ["tlp_audit_log", "audit_log", "audit_checkpoints"];

/** casekit's tables, referencing ones first, so deleting in this order satisfies the foreign keys. */
const tables = [
  "status_history",
  "lifecycles",
  "custom_field_values",
  "custom_fields",
  "case_types",
  "webhook_attempts",
  "log_group_items",
  "webhook_deliveries",
  "webhooks",
  "audit_sink_cursors",
  "audit_sinks",
  "comments",
  "observables",
  "tasks",
  "alerts",
  "alert_source_counts",
  "sessions",
  "tlp_audit_log",
  "teams",
  "events",
  "audit_log",
  "audit_checkpoints",
  "cases",
  "api_keys",
  "users",
  "sign_in_throttles",
  "organizations",
  "rate_limits",
];

/**
 * Empties casekit's tables in `schema`, in one transaction. The audit logs and the checkpoints
 * refuse DELETE, so their triggers are lifted for the transaction's length (ALTER TABLE is
 * transactional: nobody else ever sees them off).
 */
async function emptyTables(schema: string): Promise<void> {
  await admin.query(
    [
      "begin;",
      ...guarded.map((t) => `alter table "${schema}"."${t}" disable trigger user;`),
      ...tables.map((t) => `delete from "${schema}"."${t}";`),
      ...guarded.map((t) => `alter table "${schema}"."${t}" enable trigger user;`),
      "commit;",
    ].join(" "),
  );
}

/** `?` placeholders (the suite's portable SQL, never inside a literal) as PostgreSQL's $1, $2 … */
function numberedPlaceholders(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/**
 * The suite's raw access (RawAccess): autocommit statements on a pool of its own whose
 * search_path names `schema`, so the suite's unqualified SQL lands in the storage's tables. The
 * append-only guards are the triggers of migrations 0001 (tlp_audit_log) and 0014 (audit_log); lifting them is ALTER TABLE … DISABLE
 * TRIGGER USER, which only the table's owner may do, and ENABLE puts them back as they were made.
 */
function rawAccess(pool: pg.Pool): RawAccess {
  return {
    async exec(text, params = []) {
      await pool.query(numberedPlaceholders(text), [...params]);
    },
    async disableAuditGuards() {
      await pool.query("alter table tlp_audit_log disable trigger user");
      await pool.query("alter table audit_log disable trigger user");
    },
    async enableAuditGuards() {
      await pool.query("alter table tlp_audit_log enable trigger user");
      await pool.query("alter table audit_log enable trigger user");
    },
  };
}

describe.skipIf(unreachable !== null && !inCi)("postgres", () => {
  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: url, max: 2 });
    admin.on("error", () => {});
    suiteRaw = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${fileSchema}` });
    suiteRaw.on("error", () => {});
  });

  afterAll(async () => {
    await suiteRaw?.end();
    if (!admin) return;
    for (const schema of [fileSchema, ...extraSchemas]) {
      await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
    }
    await admin.end();
  });

  it("reaches the PostgreSQL server", () => {
    expect(unreachable, `PostgreSQL at ${withoutPassword(url)} is unreachable`).toBeNull();
  });

  // One schema for the whole suite; each test starts from empty tables. (DELETE, not TRUNCATE:
  // on tables this small it is many times faster.)
  describeStorage(
    "postgres",
    async () => {
      const storage = createPostgresStorage({ connectionString: url, schema: fileSchema, max: 5 });
      await storage.migrate();
      await emptyTables(fileSchema);
      return storage;
    },
    (storage: Storage) => storage.close(),
    { raw: () => rawAccess(suiteRaw!), passwordHasher: fastPasswordHasher },
  );

  describe("postgres specifics", () => {
    // One schema and one id sequence for these tests, apart from the suite's.
    const schema = freshSchema("specifics");
    const f = createFixtures();

    it("migrations raced from two pools on one new schema apply once, beside their bookkeeping", async () => {
      const own = freshSchema("race");
      const hosts = [0, 1].map(() => createPostgresStorage({ connectionString: url, schema: own, max: 3 }));
      try {
        await Promise.all(hosts.flatMap((host) => [host.migrate(), host.migrate()]));
        const journal = JSON.parse(readFileSync(join(resolveMigrationsFolder("postgres"), "meta", "_journal.json"), "utf8")) as {
          entries: unknown[];
        };
        const applied = await admin.query<{ n: string }>(`select count(*) as n from "${own}"."__drizzle_migrations"`);
        expect(Number(applied.rows[0]!.n)).toBe(journal.entries.length);
        const present = await admin.query<{ table_name: string }>(
          "select table_name from information_schema.tables where table_schema = $1 order by table_name",
          [own],
        );
        expect(present.rows.map((r) => r.table_name)).toEqual(["__drizzle_migrations", ...tables].sort());
        // And the storage works once they are done.
        await hosts[1]!.transaction((tx) => tx.organizations.insert(f.organization()));
      } finally {
        await Promise.all(hosts.map((host) => host.close()));
      }
    });

    it("migrate is idempotent", async () => {
      const own = freshSchema("again");
      const storage = createPostgresStorage({ connectionString: url, schema: own });
      try {
        await storage.migrate();
        await storage.migrate();
        const applied = await admin.query<{ n: string }>(`select count(*) as n from "${own}"."__drizzle_migrations"`);
        expect(Number(applied.rows[0]!.n)).toBeGreaterThan(0);
        await storage.ping();
      } finally {
        await storage.close();
      }
    });

    it("case numbers stay distinct when two hosts hand them out at once", async () => {
      const hosts = [0, 1].map(() => createPostgresStorage({ connectionString: url, schema, max: 4 }));
      try {
        await hosts[0]!.migrate();
        const org = f.organization();
        await hosts[0]!.transaction((tx) => tx.organizations.insert(org));
        const numbers = await Promise.all(
          Array.from({ length: 40 }, (_, i) => hosts[i % 2]!.transaction((tx) => tx.organizations.nextCaseNumber(org.id))),
        );
        expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      } finally {
        await Promise.all(hosts.map((host) => host.close()));
      }
    });

    it("refuses a schema name that is not a plain lower-case identifier, before connecting", () => {
      for (const schema of ["Bad", "has-dash", "1st", 'x"; drop schema public; --', "", "a b"]) {
        expect(() => createPostgresStorage({ connectionString: "postgres://nobody@127.0.0.1:1/none", schema })).toThrow(/schema name/);
      }
    });

    it("on a borrowed pool: sets search_path even on connections opened before, and close() leaves the pool open", async () => {
      const own = freshSchema("borrowed");
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        // Two connections already idle in the pool, with the default search_path.
        const warm = await Promise.all([pool.connect(), pool.connect()]);
        warm.forEach((client) => client.release());
        const storage = createPostgresStorage({ pool, schema: own });
        await storage.migrate();
        const orgs = [f.organization(), f.organization()];
        await Promise.all(orgs.map((org) => storage.transaction((tx) => tx.organizations.insert(org))));
        const found = await Promise.all(orgs.map((org) => storage.read((tx) => tx.organizations.findById(org.id))));
        expect(found).toStrictEqual(orgs);
        const inSchema = await admin.query<{ n: string }>(`select count(*) as n from "${own}"."organizations"`);
        expect(Number(inSchema.rows[0]!.n)).toBe(2);
        await storage.close();
        await expect(pool.query("select 1 as one")).resolves.toMatchObject({ rows: [{ one: 1 }] });
      } finally {
        await pool.end();
      }
    });

    it("two storages with different schemas can share one borrowed pool", async () => {
      const [left, right] = [freshSchema("left"), freshSchema("right")];
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      const storages = [createPostgresStorage({ pool, schema: left }), createPostgresStorage({ pool, schema: right })];
      try {
        for (const storage of storages) await storage.migrate();
        const orgs = [f.organization(), f.organization()];
        const ids = orgs.map((org) => org.id);
        for (const [i, storage] of storages.entries()) await storage.transaction((tx) => tx.organizations.insert(orgs[i]!));
        // Taking turns on the pool's one connection, each storage still sees only its own schema.
        for (let round = 0; round < 3; round++) {
          for (const [i, storage] of storages.entries()) {
            expect(await storage.read((tx) => tx.organizations.existingIds(ids))).toEqual([ids[i]]);
          }
        }
      } finally {
        await Promise.all(storages.map((storage) => storage.close()));
        await pool.end();
      }
    });

    it("timestamps come back as UTC ISO strings whatever the session's time zone", async () => {
      const pool = new pg.Pool({ connectionString: url, max: 1, options: "-c TimeZone=Asia/Kolkata" });
      const storage = createPostgresStorage({ pool, schema });
      try {
        await storage.migrate();
        const org = f.organization({ createdAt: "2026-03-01T23:59:59.123Z", updatedAt: "2026-03-01T20:00:00.001Z" });
        await storage.transaction((tx) => tx.organizations.insert(org));
        expect(await storage.read((tx) => tx.organizations.findById(org.id))).toStrictEqual(org);
      } finally {
        await storage.close();
        await pool.end();
      }
    });

    it("a conflict caught inside a transaction leaves it usable, and the rest commits", async () => {
      const storage = createPostgresStorage({ connectionString: url, schema, max: 1 });
      try {
        await storage.migrate();
        const first = f.organization();
        const second = f.organization();
        await storage.transaction(async (tx) => {
          await tx.organizations.insert(first);
          const clash = await tx.organizations.insert({ ...f.organization(), name: first.name }).catch((e: unknown) => e);
          expect(isCaseKitError(clash) && clash.code).toBe("conflict");
          await tx.organizations.insert(second);
        });
        expect(await storage.read((tx) => tx.organizations.existingIds([first.id, second.id]))).toHaveLength(2);
      } finally {
        await storage.close();
      }
    });

    it("a unit whose connection the server kills fails, and the next unit gets a working connection", async () => {
      const applicationName = `casekit_kill_${randomBytes(4).toString("hex")}`;
      const pool = new pg.Pool({ connectionString: url, max: 1, application_name: applicationName });
      const storage = createPostgresStorage({ pool, schema });
      try {
        await storage.migrate();
        const org = f.organization();
        const unit = storage.transaction(async (tx) => {
          await tx.organizations.insert(org);
          // Killed while idle in the transaction, between two statements.
          await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1", [applicationName]);
          await until(async () => {
            const left = await admin.query("select 1 from pg_stat_activity where application_name = $1", [applicationName]);
            return left.rowCount === 0;
          });
          await tx.organizations.nextCaseNumber(org.id);
        });
        await expect(unit).rejects.toThrow();
        expect(await storage.read((tx) => tx.organizations.findById(org.id))).toBeNull();
        await storage.transaction((tx) => tx.organizations.insert(org));
        expect(await storage.read((tx) => tx.organizations.findById(org.id))).toStrictEqual(org);
      } finally {
        await storage.close();
        await pool.end();
      }
    });

    it("a failed query's error carries the server's message, not the SQL", async () => {
      const storage = createPostgresStorage({ connectionString: url, schema: freshSchema("unmigrated"), max: 1 });
      try {
        // Never migrated: the tables do not exist in this schema.
        const error = await storage.read((tx) => tx.organizations.findById("org_x")).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toMatch(/does not exist/);
        expect((error as Error).message).not.toMatch(/select|from\s|where\s|params/i);
        // The connection went back to the pool in working order.
        await storage.ping();
      } finally {
        await storage.close();
      }
    });

    it("ping rejects when the server cannot be reached, every ping of the turn", async () => {
      const storage = createPostgresStorage({ connectionString: "postgres://postgres@127.0.0.1:1/none" });
      try {
        await expect(storage.ping()).rejects.toThrow();
        const pings = await Promise.allSettled([storage.ping(), storage.ping(), storage.ping()]);
        expect(pings.map((ping) => ping.status)).toEqual(["rejected", "rejected", "rejected"]);
      } finally {
        await storage.close();
      }
    });

    it("the pings of one turn (each GET /health) share one statement, sent after they were all asked for", async () => {
      const storage = createPostgresStorage({ connectionString: url, max: 3 });
      let sent = 0;
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const config = args[0] as { text?: string } | string;
        if ((typeof config === "string" ? config : (config.text ?? "")) === "select 1") sent += 1;
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        await Promise.all(Array.from({ length: 20 }, () => storage.ping()));
        expect(sent).toBe(1);
        await storage.ping();
        expect(sent).toBe(2);
      } finally {
        pg.Client.prototype.query = query;
        await storage.close();
      }
    });

    it("the shipped migrations name no schema, so search_path decides where the tables go", () => {
      const folder = resolveMigrationsFolder("postgres");
      const files = readdirSync(folder).filter((name) => name.endsWith(".sql"));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const text = readFileSync(join(folder, file), "utf8");
        expect(text, `${file} qualifies a name with a schema`).not.toMatch(/"\w+"\s*\.\s*"\w+"/);
      }
    });
  });
});
