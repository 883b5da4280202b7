/**
 * `casekit copy`: a SQLite deployment moved into PostgreSQL must carry on there as if nothing
 * happened (same records through the services, keys that authenticate, an intact TLP chain, case
 * numbers that continue), and a copy must never merge into data or leave half a copy behind.
 * Same server and CI rule as postgres.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaseKit, Storage } from "../../core/index.js";
import type { OutboundTransport } from "../../core/ports/outbound.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { copySqliteToPostgres, CopyRefusedError } from "../../adapters/copy/sqlite-to-postgres.js";
import { copyPlan, derivedTables, postgresOnlyTables } from "../../adapters/copy/table-plan.js";
import { main } from "../../server/cli.js";
import { keyHashSecret } from "../helpers/kit.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const run = await postgresShouldRun("copy sqlite to postgres");
const dir = mkdtempSync(join(tmpdir(), "casekit-copy-"));
const schemas: string[] = [];
const schemaFor = (label: string): string => {
  const name = freshSchemaName(`casekit_copy_${label}`);
  schemas.push(name);
  return name;
};
const startedAt = "2026-03-01T12:00:00.000Z";
const plan = copyPlan();
const everyTable = [...plan.copied, ...plan.derived].map((t) => t.name);

let admin: pg.Pool;
afterAll(async () => {
  if (admin) {
    for (const schema of schemas) await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Row counts of every copied or derived table in `schema`. */
async function countsIn(schema: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of everyTable) {
    counts[table] = Number((await admin.query(`select count(*) as n from "${schema}"."${table}"`)).rows[0].n);
  }
  return counts;
}

const transport: OutboundTransport = { send: async () => ({ status: 500, retryAfter: null, body: "receiver down", durationMs: 4 }) };

interface World {
  file: string;
  apiKey: string;
  analystKey: string;
  analystPassword: string;
  sessionToken: string;
}

/** A SQLite deployment with a bit of everything, built through the services. */
async function buildSqliteDeployment(file: string): Promise<World> {
  const storage = createSqliteStorage({ path: file });
  await storage.migrate();
  const clock = new ManualClock(startedAt);
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
  try {
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
    const partner = await kit.setup.initOrganization({ organizationName: "Partner SOC", email: "admin@partner.test" });
    const owner = await kit.authenticateKey(init.apiKey);
    const partnerAdmin = await kit.authenticateKey(partner.apiKey);
    await kit.organizations.updatePolicy(owner, { allowCaseSharing: true });
    await kit.organizations.updatePolicy(partnerAdmin, { allowCaseSharing: true });
    const analyst = await kit.users.create(owner, { email: "ana@acme.test", name: "Ana", password: "correct horse battery", role: "analyst" });
    const analystKey = await kit.keys.create(owner, { name: "SIEM", scopes: ["cases:read", "alerts:read", "alerts:write"], tlpClearance: 2 });
    await kit.teams.create(owner, { name: "Tier 1" });

    const cases = [];
    for (let i = 1; i <= 4; i++) {
      clock.advance(1_000);
      cases.push(
        await kit.cases.create(owner, {
          title: `Case ${i}`,
          severity: (i % 4) + 1,
          tlp: i === 4 ? 4 : 2,
          tags: [{ name: "phishing", color: "#ff0000" }, { name: `wave-${i}` }],
          customFields: { ticket: `INC-${i}`, nested: { hits: i } },
          ...(i === 2 ? { organizations: [partner.organization.id] } : {}),
        }),
      );
    }
    await kit.cases.update(owner, cases[0]!.id, { statusValue: "in_progress", assigneeId: analyst.id });
    await kit.cases.update(owner, cases[1]!.id, { statusValue: "closed" });
    await kit.cases.get(partnerAdmin, cases[1]!.id);
    // A denied view and a TLP change: entries of the hash-chained TLP audit log.
    await expect(kit.cases.get({ ...owner, tlpClearance: 2 }, cases[3]!.id)).rejects.toMatchObject({ code: "tlp_restricted" });
    await kit.cases.update(owner, cases[2]!.id, { tlp: 3 });

    const alert = await kit.alerts.create(owner, {
      title: "Beacon",
      severity: 3,
      source: "edr",
      sourceRef: "edr-1",
      tags: [{ name: "c2" }],
      eventDate: "2026-02-28T23:59:59.123Z",
      observables: [
        { dataType: "ip", data: "198.51.100.7", ioc: true },
        { dataType: "domain", data: "evil.example" },
      ],
    });
    await kit.alerts.create(owner, { title: "Beacon again", severity: 3, source: "edr", sourceRef: "edr-1" });
    const doomed = await kit.alerts.create(owner, { title: "Noise", severity: 1, source: "ids" });
    await kit.alerts.delete(owner, doomed.id);
    const promoted = await kit.alerts.create(owner, { title: "Promote me", severity: 2, source: "mail" });
    await kit.alerts.promote(owner, promoted.id, {});

    await kit.observables.create(owner, { kind: "case", id: cases[0]!.id }, { dataType: "hash", data: "d41d8cd98f00b204e9800998ecf8427e", sighted: true });
    const task = await kit.tasks.create(owner, cases[0]!.id, { title: "Collect headers", mandatory: true, dueDate: "2026-03-05T00:00:00.000Z" });
    await kit.tasks.create(owner, cases[0]!.id, { title: "Block sender" });
    await kit.comments.create(owner, { kind: "case", id: cases[0]!.id }, { body: "First look: **phishing**" });
    await kit.comments.create(owner, { kind: "task", id: task.id }, { body: "Headers attached" });
    await kit.comments.create(owner, { kind: "alert", id: alert.id }, { body: "Seen on 3 hosts" });

    await kit.webhooks.create(owner, { name: "SIEM", url: "https://hooks.example.com/casekit", events: ["case.*"], authType: "bearer", authConfig: { token: "t0ken-very-secret" } });
    await kit.cases.update(owner, cases[0]!.id, { severity: 4 });
    // Deliveries and a failed attempt, left pending for a retry.
    await kit.createDispatcher({ transport, random: () => 0 }).step();

    const session = await kit.account.signIn({ email: "ana@acme.test", password: "correct horse battery" });
    await expect(kit.account.signIn({ email: "ana@acme.test", password: "wrong" })).rejects.toMatchObject({ code: "invalid_credentials" });
    return { file, apiKey: init.apiKey, analystKey: analystKey.key, analystPassword: "correct horse battery", sessionToken: session.token };
  } finally {
    await storage.close();
  }
}

/**
 * What the services show of a deployment. Views of TLP-marked records append to the TLP audit
 * log, so the log is read by `tlpFirst` before the records (on the copy) or after them (on the source).
 */
async function serviceView(kit: CaseKit, apiKey: string, tlpFirst: boolean) {
  const owner = await kit.authenticateKey(apiKey);
  const tlp = async () => ({ entries: await all((cursor) => kit.tlp.auditLogs(owner, { limit: 500, ...cursor })), verdict: await kit.tlp.verify(owner) });
  const before = tlpFirst ? await tlp() : undefined;
  const cases = await all((cursor) => kit.cases.list(owner, { limit: 2, ...cursor }));
  const alerts = await all((cursor) => kit.alerts.list(owner, { limit: 2, ...cursor }));
  const deletedAlert = (await kit.alerts.list(owner, { limit: 500 })).data.length;
  const records = {
    organizationId: owner.organizationId,
    cases,
    caseById: await Promise.all(cases.map((c) => kit.cases.get(owner, c.id))),
    alerts,
    alertById: await Promise.all(alerts.map((a) => kit.alerts.get(owner, a.id))),
    deletedAlert,
    bySource: await kit.alerts.countBySource(owner, {}),
    observables: await all((cursor) => kit.observables.list(owner, { limit: 500, ...cursor })),
    tasks: await all((cursor) => kit.tasks.list(owner, { limit: 500, ...cursor })),
    comments: await Promise.all(cases.map((c) => kit.comments.listOf(owner, { kind: "case", id: c.id }, {}))),
    users: await kit.users.list(owner, {}),
    keys: await kit.keys.list(owner, {}),
    teams: await kit.teams.list(owner, {}),
    webhooks: await kit.webhooks.list(owner, {}),
    // As stored: the grant each subscription delivers with travels too.
    grants: (await kit.storage.read((tx) => tx.webhooks.list(owner.organizationId, { limit: 500 }))).map((w) => [w.id, w.grant]),
    deliveries: await Promise.all((await kit.webhooks.list(owner, {})).data.map((w) => kit.webhooks.listDeliveries(owner, w.id, {}))),
  };
  return { records, tlp: before ?? (await tlp()) };
}

async function all<T>(page: (cursor: { cursor?: string }) => Promise<{ data: T[]; nextCursor: string | null }>): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const result: { data: T[]; nextCursor: string | null } = await page(cursor ? { cursor } : {});
    rows.push(...result.data);
    cursor = result.nextCursor;
  } while (cursor);
  return rows;
}

function postgresKit(schema: string, clock: ManualClock): { kit: CaseKit; storage: Storage } {
  const storage = createPostgresStorage({ connectionString: postgresUrl, schema });
  return { kit: createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } }), storage };
}

describe.skipIf(!run)("copying a SQLite deployment to PostgreSQL", () => {
  let world: World;
  let source: Awaited<ReturnType<typeof serviceView>>;
  const target = schemaFor("main");

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: postgresUrl, max: 2 });
    world = await buildSqliteDeployment(join(dir, "source.db"));
    const storage = createSqliteStorage({ path: world.file });
    try {
      source = await serviceView(createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock: new ManualClock(startedAt), config: { keyHashSecret } }), world.apiKey, false);
    } finally {
      await storage.close();
    }
  });

  it("plans every table of both schemas, parents first", async () => {
    const sqlite = new Database(world.file, { readonly: true });
    const sqliteTables = (sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name <> '__drizzle_migrations'").all() as { name: string }[]).map((r) => r.name);
    sqlite.close();
    expect([...everyTable].sort()).toEqual(sqliteTables.sort());
    expect(plan.derived.map((t) => t.name).sort()).toEqual(Object.keys(derivedTables).sort());

    const migrated = schemaFor("plan");
    const storage = createPostgresStorage({ connectionString: postgresUrl, schema: migrated });
    await storage.migrate();
    await storage.close();
    const pgTables = (await admin.query("select table_name from information_schema.tables where table_schema = $1 and table_name <> '__drizzle_migrations'", [migrated])).rows.map((r) => r.table_name as string);
    expect(pgTables.sort()).toEqual([...everyTable, ...Object.keys(postgresOnlyTables)].sort());

    const position = new Map(plan.copied.map((t, i) => [t.name, i]));
    for (const [child, parent] of [["users", "organizations"], ["api_keys", "users"], ["tasks", "cases"], ["observables", "alerts"], ["webhook_deliveries", "events"], ["webhook_attempts", "webhook_deliveries"]] as const) {
      expect(position.get(parent)!, `${parent} before ${child}`).toBeLessThan(position.get(child)!);
    }
  });

  it("copies everything: the services show the same records, keys and sessions work, the TLP chain verifies, numbering continues", async () => {
    const progress: string[] = [];
    const result = await copySqliteToPostgres({ sqlitePath: world.file, connectionString: postgresUrl, schema: target, batchSize: 3, onProgress: (p) => void progress.push(`${p.table}:${p.copied}/${p.total}`) });
    expect(result.tables.map((t) => t.table)).toEqual(everyTable);
    const sqlite = new Database(world.file, { readonly: true });
    for (const { table, rows } of result.tables) expect(rows, table).toBe((sqlite.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n);
    sqlite.close();
    expect(await countsIn(target)).toEqual(Object.fromEntries(result.tables.map((t) => [t.table, t.rows])));
    expect(result.tables.find((t) => t.table === "cases")!.rows).toBe(5);
    // Batches of 3: the five cases came in two.
    expect(progress.filter((p) => p.startsWith("cases:"))).toEqual(["cases:3/5", "cases:5/5"]);

    const clock = new ManualClock(startedAt);
    const { kit, storage } = postgresKit(target, clock);
    try {
      const copy = await serviceView(kit, world.apiKey, true);
      expect(copy.records).toEqual(source.records);
      expect(copy.tlp).toEqual(source.tlp);
      expect(copy.tlp.verdict.ok).toBe(true);
      expect(copy.tlp.verdict.checked).toBeGreaterThan(3);

      const analyst = await kit.authenticateKey(world.analystKey);
      expect(analyst.tlpClearance).toBe(2);
      expect((await kit.account.signIn({ email: "ana@acme.test", password: world.analystPassword })).user.email).toBe("ana@acme.test");
      expect((await kit.account.authenticateSession(world.sessionToken, { requireCsrf: false })).organizationId).toBe(source.records.organizationId);

      const owner = await kit.authenticateKey(world.apiKey);
      clock.advance(60_000);
      expect((await kit.cases.create(owner, { title: "First on PostgreSQL", severity: 2 })).number).toBe(6);
      expect((await kit.tlp.verify(owner)).ok).toBe(true);
      // The new case's event fans out, and the deliveries left pending on SQLite are retried from here.
      const pending = source.records.deliveries.flatMap((page) => page.data).filter((d) => d.status === "pending").length;
      expect(pending).toBeGreaterThan(0);
      clock.advance(24 * 3_600_000);
      expect(await kit.createDispatcher({ transport, random: () => 0 }).step()).toEqual({ events: 1, attempts: pending + 1 });
    } finally {
      await storage.close();
    }
  });

  it("refuses a target that holds data, and changes nothing in it", async () => {
    const before = await countsIn(target);
    const error = await copySqliteToPostgres({ sqlitePath: world.file, connectionString: postgresUrl, schema: target }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CopyRefusedError);
    expect((error as Error).message).toMatch(/not empty/);
    expect(await countsIn(target)).toEqual(before);
  });

  it("leaves the target empty when the copy fails halfway", async () => {
    const schema = schemaFor("failed");
    const error = await copySqliteToPostgres({
      sqlitePath: world.file,
      connectionString: postgresUrl,
      schema,
      batchSize: 2,
      onProgress: ({ table, copied }) => {
        if (table === "cases" && copied > 0) throw new Error("disk full (injected)");
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("disk full (injected)");
    const counts = await countsIn(schema);
    expect(Object.values(counts).every((n) => n === 0), JSON.stringify(counts)).toBe(true);
    // Nothing half-done stands in the way: the same target takes the copy afterwards.
    const result = await copySqliteToPostgres({ sqlitePath: world.file, connectionString: postgresUrl, schema });
    // Four reports, one deduplicated into another.
    expect(result.tables.find((t) => t.table === "alerts")!.rows).toBe(3);
  });

  it("refuses a source another connection has open (a running host), writes nothing, and keeps writers out while it copies", async () => {
    const storage = createSqliteStorage({ path: world.file });
    const schema = schemaFor("held");
    try {
      await storage.ping();
      const error = await copySqliteToPostgres({ sqlitePath: world.file, connectionString: postgresUrl, schema }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CopyRefusedError);
      expect((error as Error).message).toMatch(/is open in another process \(a running casekit serve or worker\?\): stop it first/);
      expect((await admin.query("select 1 from information_schema.schemata where schema_name = $1", [schema])).rowCount).toBe(0);
    } finally {
      await storage.close();
    }
    // While a copy runs, a writer that opens the file waits and fails rather than writing behind it.
    let writerError: unknown;
    await copySqliteToPostgres({
      sqlitePath: world.file,
      connectionString: postgresUrl,
      schema,
      onProgress: ({ table }) => {
        if (table !== "organizations" || writerError !== undefined) return;
        const writer = new Database(world.file, { timeout: 0 });
        try {
          writer.prepare("select count(*) from organizations").get();
        } catch (e) {
          writerError = e;
        } finally {
          writer.close();
        }
      },
    });
    expect((writerError as { code?: string }).code).toBe("SQLITE_BUSY");
  });

  it("refuses a source that is not a migrated casekit database", async () => {
    const empty = join(dir, "empty.db");
    new Database(empty).close();
    await expect(copySqliteToPostgres({ sqlitePath: empty, connectionString: postgresUrl, schema: schemaFor("unmigrated") })).rejects.toThrow(/not a migrated casekit database/);
    await expect(copySqliteToPostgres({ sqlitePath: join(dir, "missing.db"), connectionString: postgresUrl })).rejects.toBeInstanceOf(CopyRefusedError);
  });

  it("casekit copy: prints a count per table and where the key-hash secret is; errors are one line", async () => {
    const file = join(dir, "cli.db");
    const lines: string[] = [];
    const errors: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => errors.push(line) };
    expect(await main(["init", "--org", "CLI SOC", "--email", "ops@cli.test", "--database", file, "--json"], out)).toBe(0);
    const { apiKey } = JSON.parse(lines.pop()!) as { apiKey: string };

    const schema = schemaFor("cli");
    await admin.query(`create schema "${schema}"`);
    const url = `${postgresUrl}${postgresUrl.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    expect(await main(["copy", "--from", file, "--to", url], out), errors.join("\n")).toBe(0);
    const text = lines.join("\n");
    expect(text).toMatch(/organizations\s+1\b/);
    expect(text).toMatch(/api_keys\s+1\b/);
    expect(text).toContain(`${file}.secret`);
    expect(text).toContain("CASEKIT_KEY_HASH_SECRET");
    const secret = readFileSync(`${file}.secret`, "utf8").trim();
    expect(text).not.toContain(secret);

    const storage = createPostgresStorage({ connectionString: postgresUrl, schema });
    try {
      const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret: secret } });
      expect((await kit.authenticateKey(apiKey)).scopes.size).toBeGreaterThan(0);
    } finally {
      await storage.close();
    }

    errors.length = 0;
    expect(await main(["copy", "--from", file, "--to", url], out)).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^casekit copy: .*not empty/);
    expect(errors[0]).not.toContain("\n");
    errors.length = 0;
    expect(await main(["copy", "--from", file], out)).toBe(1);
    expect(errors[0]).toMatch(/--to/);
  });
});
