/**
 * The declaration mechanism on both dialects, with a resource that uses every column kind and
 * every filter kind (and two small ones for updateMany and partial unique keys): its table is
 * created from the derived drizzle table (through drizzle-kit's own DDL), and the generic
 * repository must round-trip records, scope by tenant, hide soft-deleted rows, word each conflict
 * and leave the unit usable after it, filter and walk keyset pages, build each statement's text
 * once, and read a joined record from the same row.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { generateDrizzleJson, generateMigration, generateSQLiteDrizzleJson, generateSQLiteMigration } from "drizzle-kit/api";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isCaseKitError } from "../../core/index.js";
import { bool, enumOf, float, id, int, internal, json, nullableJson, text, timestamp } from "../../adapters/declare/columns.js";
import type { Dialect, Executor } from "../../adapters/declare/dialect.js";
import { createRepository } from "../../adapters/declare/repository.js";
import type { RecordOf } from "../../adapters/declare/resource.js";
import { defineResource } from "../../adapters/declare/resource.js";
import { recordOf } from "../../adapters/declare/rows.js";
import { listQuery } from "../../adapters/declare/sql.js";
import { postgresDialect, postgresExecutor } from "../../adapters/postgres/dialect.js";
import { pgTableOf } from "../../adapters/postgres/declared-table.js";
import { recordObject, sqliteDialect, sqliteExecutor, storedRecordColumn } from "../../adapters/sqlite/dialect.js";
import { sqliteTableOf } from "../../adapters/sqlite/declared-table.js";
import { Statements } from "../../adapters/sqlite/statements.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";

const widgets = defineResource({
  table: "widgets",
  noun: "A widget",
  columns: {
    id: id(),
    organizationId: text(),
    code: text(),
    name: text(),
    shape: enumOf(["round", "square"]),
    size: int(),
    weight: int({ nullable: true, big: true }),
    active: bool(),
    tags: json<string[]>({ default: [] }),
    labels: json<{ name: string; colour: string }[]>(),
    meta: nullableJson<{ note: string }>(),
    madeAt: timestamp(),
    seenAt: timestamp({ nullable: true }),
    deletedAt: timestamp({ nullable: true }),
  },
  softDelete: "deletedAt",
  fixed: ["madeAt"],
  unique: [{ name: "widgets_code_unique", columns: ["organizationId", "code"], conflict: "The organization already has a widget with this code" }],
  indexes: [
    { name: "widgets_organization_id_idx", columns: ["organizationId", "id"] },
    { name: "widgets_labels_idx", columns: ["labels"], gin: true },
    // Covering for a count of live rows by time on SQLite too, which needs deleted_at in it.
    { name: "widgets_live_made_at_idx", columns: ["organizationId", "madeAt"], where: "deleted_at IS NULL", sqliteAlso: ["deletedAt"] },
  ],
  filters: {
    shape: { kind: "equals", column: "shape" },
    size: { kind: "anyOf", column: "size" },
    madeAt: { kind: "range", column: "madeAt" },
    tags: { kind: "jsonTags", column: "tags" },
    labels: { kind: "jsonTags", column: "labels", key: "name" },
    name: { kind: "contains", column: "name" },
    madeFrom: { kind: "atLeast", column: "madeAt" },
    madeBefore: { kind: "below", column: "madeAt" },
    // Two marks, both bound to the one value.
    small: { kind: "condition", column: "size", sql: "size <= ? OR weight <= ?" },
    // Declared to hold for every row from 10 on (as a bound on markings at the highest level).
    light: { kind: "condition", column: "weight", sql: "weight <= ?", holdsFrom: 10 },
  },
  // Every read of a widget on SQLite reads the stored text; gadgets, gizmos and tallies build theirs.
  storedRecord: true,
});
type Widget = RecordOf<typeof widgets>;

/**
 * No unique key an update could clash on: updateMany writes a page in one statement where the
 * dialect binds a recordset. `hits` is internal: the table's alone, never the record's.
 */
const gadgets = defineResource({
  table: "gadgets",
  noun: "A gadget",
  columns: {
    id: id(),
    organizationId: text(),
    name: text(),
    count: int({ big: true }),
    enabled: bool(),
    tags: json<string[]>(),
    seenAt: timestamp({ nullable: true }),
    hits: internal(int({ default: 0 })),
    deletedAt: timestamp({ nullable: true }),
  },
  softDelete: "deletedAt",
});
type Gadget = RecordOf<typeof gadgets>;

/** A partial unique key (live rows only) whose conflict is worded from the clashing record. */
const gizmos = defineResource({
  table: "gizmos",
  noun: "A gizmo",
  columns: {
    id: id(),
    organizationId: text(),
    kind: text(),
    code: text(),
    deletedAt: timestamp({ nullable: true }),
  },
  unique: [
    {
      name: "gizmos_live_code_unique",
      columns: ["organizationId", "code"],
      where: "deleted_at IS NULL",
      conflict: (gizmo) => `The organization already has a live ${String(gizmo.kind)} gizmo with this code`,
    },
  ],
});

/**
 * No tenant owns it (keyed by a name, like sign-in counters by email): an unsorted key, a float,
 * a one-column key kept as a column constraint, and a GIN index (PostgreSQL only).
 */
const tallies = defineResource({
  table: "tallies",
  noun: "A tally",
  tenant: null,
  columns: {
    name: id({ unsorted: true }),
    label: text(),
    score: float(),
    tags: json<string[]>(),
  },
  unique: [{ name: "tallies_label_unique", columns: ["label"], constraint: true, conflict: "Another tally has this label" }],
  indexes: [{ name: "tallies_tags_idx", columns: ["tags"], gin: true }],
  filters: { label: { kind: "equals", column: "label" }, tags: { kind: "jsonTags", column: "tags" } },
});

interface Setup {
  dialect: Dialect;
  executor: Executor;
  exec(sql: string): Promise<void>;
  /** A statement on a connection of its own, outside the tests' transaction (PostgreSQL only). */
  elsewhere?: (sql: string) => Promise<void>;
  close(): Promise<void>;
}

async function sqliteSetup(): Promise<Setup> {
  const db = new Database(":memory:");
  const ddl = await generateSQLiteMigration(await generateSQLiteDrizzleJson({}), await generateSQLiteDrizzleJson({ widgets: sqliteTableOf(widgets), gadgets: sqliteTableOf(gadgets), gizmos: sqliteTableOf(gizmos), tallies: sqliteTableOf(tallies) }));
  for (const statement of ddl) db.exec(statement);
  return { dialect: sqliteDialect, executor: sqliteExecutor(new Statements(db)), exec: async (sql) => void db.exec(sql), close: async () => void db.close() };
}

async function postgresSetup(): Promise<Setup> {
  const schema = freshSchemaName("casekit_declared");
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.query(`set search_path = ${schema}`);
  const ddl = await generateMigration(generateDrizzleJson({}), generateDrizzleJson({ widgets: pgTableOf(widgets), gadgets: pgTableOf(gadgets), gizmos: pgTableOf(gizmos), tallies: pgTableOf(tallies) }));
  for (const statement of ddl) await client.query(statement);
  const other = new pg.Client({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
  await other.connect();
  return {
    dialect: postgresDialect,
    executor: postgresExecutor(client),
    exec: async (sql) => void (await client.query(sql)),
    elsewhere: async (sql) => void (await other.query(sql)),
    close: async () => {
      await other.end();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    },
  };
}

const dialects: [string, () => Promise<Setup>][] = [["sqlite", sqliteSetup]];
const postgresRuns = await postgresShouldRun("declared resource");
if (postgresRuns) dialects.push(["postgres", postgresSetup]);

/** An index's columns in order, from the database's catalog. */
const indexColumns: Record<string, string> = {
  sqlite: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
  postgres:
    "SELECT a.attname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)" +
    " WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace ORDER BY array_position(i.indkey::int2[], a.attnum)",
};

const org = "org_1";
let serial = 0;
function widget(overrides: Partial<Widget> = {}): Widget {
  serial += 1;
  const n = String(serial).padStart(4, "0");
  return {
    id: `wdg_${n}`,
    organizationId: org,
    code: `W-${n}`,
    name: `Widget ${n}`,
    shape: "round",
    size: 1,
    weight: null,
    active: true,
    tags: [],
    labels: [],
    meta: null,
    madeAt: `2026-01-01T00:00:${String(serial % 60).padStart(2, "0")}.123Z`,
    seenAt: null,
    deletedAt: null,
    ...overrides,
  };
}

async function conflictMessage(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isCaseKitError(error), `expected a conflict, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe("conflict");
  return (error as Error).message;
}

describe.each(dialects)("a declared resource on %s", (name, open) => {
  let setup: Setup;
  let repo: ReturnType<typeof createRepository<typeof widgets>>;

  beforeAll(async () => {
    setup = await open();
    repo = createRepository(widgets, setup.dialect, setup.executor, { open: true, writable: true });
  });
  afterAll(() => setup.close());
  // Every write of a unit runs inside its transaction, as the storages run them.
  beforeEach(async () => {
    await setup.exec("DELETE FROM widgets");
    await setup.exec("DELETE FROM gadgets");
    await setup.exec("DELETE FROM gizmos");
    await setup.exec("DELETE FROM tallies");
    await setup.exec("BEGIN");
  });
  afterEach(() => setup.exec("COMMIT"));

  it("round-trips every column kind, with null for absent values and never undefined", async () => {
    const bare = widget();
    const full = widget({
      shape: "square",
      size: 7,
      weight: 2 ** 40,
      active: false,
      tags: ["a", "b"],
      labels: [{ name: "red", colour: "#f00" }],
      meta: { note: "it's “quoted”" },
      seenAt: "2026-02-03T04:05:06.789Z",
    });
    await repo.insert(bare);
    await repo.insert(full);
    expect(await repo.findById(org, bare.id)).toStrictEqual(bare);
    expect(await repo.findById(org, full.id)).toStrictEqual(full);
    expect(await repo.findById("org_other", full.id)).toBeNull();
  });

  it("whole records come back decoded by the database (selectRecord): awkward text, extreme numbers, nested JSON", async () => {
    const awkward = widget({
      name: `it's "quoted" \\ back\nslash, tab\t, ünïcødé 🧪 and {json: [1]}`,
      size: -(2 ** 31),
      weight: 2 ** 53 - 1,
      active: false,
      tags: ["", "a\"b", "🧪"],
      labels: [{ name: "x\\y", colour: "\u00e9" }],
      meta: { note: "nested \"quotes\" and \n" },
      seenAt: "2026-12-31T23:59:59.999Z",
    });
    await repo.insert(awkward);
    expect(await repo.findById(org, awkward.id)).toStrictEqual(awkward);
    expect(await repo.list(org, {}, { limit: 5, order: "asc" })).toStrictEqual([awkward]);
    expect(await repo.findMany(org, [awkward.id])).toStrictEqual([awkward]);
    const tallyRepo = createRepository(tallies, setup.dialect, setup.executor, { open: true, writable: true });
    const tally = { name: "extremes", label: "E", score: 0.1 + 0.2, tags: [] };
    const tiny = { name: "tiny", label: "T", score: -5e-324, tags: ["x"] };
    await tallyRepo.insert(tally);
    await tallyRepo.insert(tiny);
    expect(await tallyRepo.findById(null, tally.name)).toStrictEqual(tally);
    expect(await tallyRepo.list(null, {}, { limit: 5, order: "asc" })).toStrictEqual([tally, tiny]);
  });

  it("soft-deleted rows are invisible to every read and untouchable by update", async () => {
    const record = widget();
    await repo.insert(record);
    expect(await repo.update({ ...record, deletedAt: "2026-03-01T00:00:00.000Z" })).toBe(true);
    expect(await repo.findById(org, record.id)).toBeNull();
    expect(await repo.findMany(org, [record.id])).toEqual([]);
    expect(await repo.list(org, {}, { limit: 10, order: "asc" })).toEqual([]);
    expect(await repo.update({ ...record, name: "back", deletedAt: null })).toBe(false);
  });

  it("a list with deleted rows too returns the soft-deleted ones in their place, with its own text", async () => {
    const [a, gone, c] = [widget(), widget({ deletedAt: "2026-03-01T00:00:00.000Z" }), widget()];
    const theirs = widget({ organizationId: "org_other", deletedAt: "2026-03-01T00:00:00.000Z" });
    for (const w of [a, gone, c, theirs]) await repo.insert(w);
    expect(await repo.list(org, {}, { limit: 10, order: "desc", withDeleted: true })).toStrictEqual([c, gone, a]);
    expect(await repo.list(org, {}, { limit: 10, order: "desc", after: c.id, withDeleted: true })).toStrictEqual([gone, a]);
    expect(await repo.list(org, {}, { limit: 10, order: "desc" })).toStrictEqual([c, a]);
    const all = listQuery(widgets, setup.dialect, org, {}, { limit: 5, order: "desc", withDeleted: true })!;
    expect(all.text).not.toBe(listQuery(widgets, setup.dialect, org, {}, { limit: 5, order: "desc" })!.text);
    expect(all.text).not.toMatch(/deleted_at IS NULL/);
  });

  it("an index holds its declared columns, and on SQLite the ones it also holds there", async () => {
    const columns = async (index: string) => (await setup.executor.all(indexColumns[name]!, [index])).map((row) => row.name);
    expect(await columns("widgets_live_made_at_idx")).toEqual(name === "sqlite" ? ["organization_id", "made_at", "deleted_at"] : ["organization_id", "made_at"]);
    expect(await columns("widgets_organization_id_idx")).toEqual(["organization_id", "id"]);
  });

  it("update writes the mutable columns of the tenant's row only", async () => {
    const record = widget();
    await repo.insert(record);
    expect(await repo.update({ ...record, organizationId: "org_other", name: "hijacked" })).toBe(false);
    const changed = { ...record, name: "renamed", active: false, tags: ["x"] };
    expect(await repo.update({ ...changed, madeAt: "2030-01-01T00:00:00.000Z" })).toBe(true);
    expect(await repo.findById(org, record.id)).toStrictEqual(changed);
  });

  it("each conflict is worded by the declaration, and the unit stays usable after it", async () => {
    const first = widget();
    const second = widget();
    await repo.insert(first);
    await repo.insert(second);
    expect(await conflictMessage(repo.insert({ ...widget(), id: first.id }))).toBe("A widget with this id already exists");
    expect(await conflictMessage(repo.insert({ ...widget(), code: first.code }))).toBe("The organization already has a widget with this code");
    expect(await conflictMessage(repo.update({ ...second, code: first.code }))).toBe("The organization already has a widget with this code");
    const third = widget();
    await repo.insert(third);
    expect((await repo.findMany(org, [first.id, second.id, third.id, "wdg_none"])).map((w) => w.id)).toEqual([first.id, second.id, third.id]);
    expect(await repo.findById(org, second.id)).toStrictEqual(second);
  });

  it("each filter kind selects what it says, and an empty any-of list selects nothing", async () => {
    const a = widget({ shape: "square", size: 3, tags: ["phishing", "mail"], labels: [{ name: "urgent", colour: "red" }], name: "Big_Blue 100%" });
    const b = widget({ size: 5, tags: ["malware"], labels: [{ name: "later", colour: "grey" }], name: "small green" });
    const c = widget({ size: 3, name: "BIG red" });
    for (const w of [a, b, c]) await repo.insert(w);
    const ids = async (filters: Parameters<typeof repo.list>[1]) => (await repo.list(org, filters, { limit: 50, order: "asc" })).map((w) => w.id);
    expect(await ids({ shape: "square" })).toEqual([a.id]);
    expect(await ids({ size: [3] })).toEqual([a.id, c.id]);
    expect(await ids({ size: [] })).toEqual([]);
    expect(await ids({ madeAt: { after: a.madeAt } })).toEqual([b.id, c.id]);
    expect(await ids({ madeAt: { after: a.madeAt, before: c.madeAt } })).toEqual([b.id]);
    expect(await ids({ tags: ["mail", "malware"] })).toEqual([a.id, b.id]);
    expect(await ids({ labels: ["urgent"] })).toEqual([a.id]);
    expect(await ids({ name: "big" })).toEqual([a.id, c.id]);
    expect(await ids({ name: "g_b" })).toEqual([a.id]);
    expect(await ids({ name: "0%" })).toEqual([a.id]);
    expect(await ids({ name: "%" })).toEqual([a.id]);
    expect(await ids({ size: [3], name: "red" })).toEqual([c.id]);
  });

  it("a JSON tag filter matches names holding quotes and backslashes as written", async () => {
    const odd = `say "hi" \\ it's {1,2}`;
    const a = widget({ labels: [{ name: odd, colour: "red" }, { name: "plain", colour: "grey" }] });
    const b = widget({ labels: [{ name: "say", colour: "red" }] });
    for (const w of [a, b]) await repo.insert(w);
    const ids = async (labels: string[]) => (await repo.list(org, { labels }, { limit: 50, order: "asc" })).map((w) => w.id);
    expect(await ids([odd])).toEqual([a.id]);
    expect(await ids(["say", "none"])).toEqual([b.id]);
    expect(await ids(["plain", "say"])).toEqual([a.id, b.id]);
  });

  it("a SELECT ending with holdRow holds its rows against other writers until the unit ends, not against references", async () => {
    const a = widget();
    await repo.insert(a);
    await setup.exec("COMMIT");
    await setup.exec("BEGIN");
    const held = await setup.executor.all(`SELECT id FROM widgets WHERE id = ${setup.dialect.param(1)}${setup.dialect.holdRow}`, [a.id]);
    expect(held).toEqual([{ id: a.id }]);
    // SQLite's unit holds the whole database. On PostgreSQL another connection's claim of the row
    // fails, while the KEY SHARE lock a row referencing it would take is granted.
    if (setup.elsewhere) {
      await expect(setup.elsewhere(`SELECT id FROM widgets WHERE id = '${a.id}' FOR NO KEY UPDATE NOWAIT`)).rejects.toThrow(/could not obtain lock/);
      await expect(setup.elsewhere(`SELECT id FROM widgets WHERE id = '${a.id}' FOR KEY SHARE NOWAIT`)).resolves.toBeUndefined();
    }
  });

  it("keyset pages walk the tenant's rows exactly once in either order", async () => {
    const records = Array.from({ length: 11 }, () => widget());
    for (const w of [...records].reverse()) await repo.insert(w);
    await repo.insert(widget({ organizationId: "org_other" }));
    for (const order of ["asc", "desc"] as const) {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await repo.list(org, {}, { limit: 4, order, after });
        seen.push(...page.map((w) => w.id));
        if (page.length < 4) break;
        after = page.at(-1)!.id;
      }
      const expected = records.map((w) => w.id);
      expect(seen).toEqual(order === "asc" ? expected : expected.reverse());
    }
    expect(await repo.list(org, {}, { limit: 0, order: "asc" })).toEqual([]);
  });

  it("builds a list's text once per filter shape, whatever the values", () => {
    const one = listQuery(widgets, setup.dialect, org, { size: [1, 4], name: "x" }, { limit: 5, order: "asc" });
    const two = listQuery(widgets, setup.dialect, "org_2", { size: [2, 3], name: "y" }, { limit: 9, order: "asc" });
    const other = listQuery(widgets, setup.dialect, org, { size: [1] }, { limit: 5, order: "asc" });
    expect(two!.text).toBe(one!.text);
    expect(other!.text).not.toBe(one!.text);
  });

  it("a one-value any-of is `=` (an index on the column yields rows in order), one text for every single value", () => {
    const one = listQuery(widgets, setup.dialect, org, { size: [1] }, { limit: 5, order: "desc" })!;
    const another = listQuery(widgets, setup.dialect, org, { size: [7] }, { limit: 5, order: "desc" })!;
    const several = listQuery(widgets, setup.dialect, org, { size: [1, 7] }, { limit: 5, order: "desc" })!;
    expect(one.text).toMatch(/ size = (\?|\$2) /);
    expect(one.params).toEqual([org, 1, 5]);
    expect(another.text).toBe(one.text);
    expect(several.text).not.toMatch(/ size = (\?|\$2) /);
  });

  it("atLeast is inclusive, below exclusive, and a condition binds its value at each mark", async () => {
    const a = widget({ size: 1, madeAt: "2026-01-02T00:00:01.000Z" });
    const b = widget({ size: 4, weight: 2, madeAt: "2026-01-02T00:00:02.000Z" });
    const c = widget({ size: 9, madeAt: "2026-01-02T00:00:03.000Z" });
    for (const w of [a, b, c]) await repo.insert(w);
    const ids = async (filters: Parameters<typeof repo.list>[1]) => (await repo.list(org, filters, { limit: 50, order: "asc" })).map((w) => w.id);
    expect(await ids({ madeFrom: b.madeAt })).toEqual([b.id, c.id]);
    expect(await ids({ madeBefore: b.madeAt })).toEqual([a.id]);
    expect(await ids({ madeFrom: a.madeAt, madeBefore: c.madeAt })).toEqual([a.id, b.id]);
    expect(await ids({ small: 2 })).toEqual([a.id, b.id]);
    expect(await ids({ small: 0 })).toEqual([]);
    expect(listQuery(widgets, setup.dialect, org, { small: 2 }, { limit: 5, order: "asc" })!.params).toEqual([org, 2, 2, 5]);
  });

  it("a condition bound at or above its holdsFrom is left out of the statement; below it, it filters", async () => {
    const a = widget({ weight: 2 });
    const b = widget({ weight: 12 });
    for (const w of [a, b]) await repo.insert(w);
    const ids = async (filters: Parameters<typeof repo.list>[1]) => (await repo.list(org, filters, { limit: 50, order: "asc" })).map((w) => w.id);
    const bare = listQuery(widgets, setup.dialect, org, {}, { limit: 5, order: "asc" })!;
    for (const bound of [10, 11]) {
      const left = listQuery(widgets, setup.dialect, org, { light: bound }, { limit: 5, order: "asc" })!;
      expect(left).toEqual(bare);
      // Proof that nothing compares: b breaks the declared rule, and is listed anyway.
      expect(await ids({ light: bound })).toEqual([a.id, b.id]);
    }
    const kept = listQuery(widgets, setup.dialect, org, { light: 9 }, { limit: 5, order: "asc" })!;
    expect(kept.text).toMatch(/weight <= (\?|\$2)/);
    expect(kept.params).toEqual([org, 9, 5]);
    expect(await ids({ light: 9 })).toEqual([a.id]);
  });

  it("updateMany writes each live record of the tenant, counts them, and words a clash", async () => {
    const [a, b, gone] = [widget(), widget(), widget({ deletedAt: "2026-03-01T00:00:00.000Z" })];
    for (const w of [a, b, gone]) await repo.insert(w);
    const renamed = [a, b].map((w) => ({ ...w, name: `${w.name} renamed` }));
    expect(await repo.updateMany([...renamed, { ...gone, name: "x" }, { ...a, organizationId: "org_other" }])).toBe(2);
    expect(await repo.findMany(org, [a.id, b.id])).toStrictEqual(renamed);
    expect(await repo.updateMany([])).toBe(0);
    expect(await conflictMessage(repo.updateMany([{ ...b, code: a.code }]))).toBe("The organization already has a widget with this code");
    expect(await repo.findById(org, b.id)).toStrictEqual(renamed[1]);
  });

  it("updateMany without a clashable key writes every column kind of each live record of the tenant", async () => {
    const gadgetRepo = createRepository(gadgets, setup.dialect, setup.executor, { open: true, writable: true });
    const gadget = (n: number, overrides: Partial<Gadget> = {}): Gadget => ({
      id: `gdg_${n}`,
      organizationId: org,
      name: `Gadget ${n}`,
      count: n,
      enabled: false,
      tags: [],
      seenAt: null,
      deletedAt: null,
      ...overrides,
    });
    const [a, b, gone] = [gadget(1), gadget(2), gadget(3, { deletedAt: "2026-03-01T00:00:00.000Z" })];
    for (const g of [a, b, gone]) await gadgetRepo.insert(g);
    const changed = [
      { ...a, name: "it's “a”", count: 2 ** 40, enabled: true, tags: ["x", "y"], seenAt: "2026-04-05T06:07:08.009Z" },
      { ...b, deletedAt: "2026-05-01T00:00:00.000Z" },
    ];
    expect(await gadgetRepo.updateMany([...changed, { ...gone, name: "x" }, { ...a, organizationId: "org_other", name: "hijacked" }])).toBe(2);
    expect(await gadgetRepo.findById(org, a.id)).toStrictEqual(changed[0]);
    expect(await gadgetRepo.findById(org, b.id)).toBeNull();
    expect(await gadgetRepo.updateMany([])).toBe(0);
  });

  it("an internal column is the table's alone: inserts leave it to its default, no read returns it, no update writes it", async () => {
    const gadgetRepo = createRepository(gadgets, setup.dialect, setup.executor, { open: true, writable: true });
    const p = setup.dialect.param;
    const hits = async (id: string) => Number((await setup.executor.all(`SELECT hits FROM gadgets WHERE id = ${p(1)}`, [id]))[0]!.hits);
    const a: Gadget = { id: "gdg_1", organizationId: org, name: "Gadget", count: 1, enabled: true, tags: [], seenAt: null, deletedAt: null };
    const b: Gadget = { ...a, id: "gdg_2" };
    await gadgetRepo.insert(a);
    expect(await gadgetRepo.insertMany([b])).toBe(1);
    expect([await hits(a.id), await hits(b.id)]).toEqual([0, 0]);
    await setup.executor.run(`UPDATE gadgets SET hits = ${p(1)}`, [7]);
    expect(await gadgetRepo.findById(org, a.id)).toStrictEqual(a);
    expect(await gadgetRepo.list(org, {}, { limit: 5, order: "asc" })).toStrictEqual([a, b]);
    expect(await gadgetRepo.update({ ...a, name: "renamed" })).toBe(true);
    expect(await gadgetRepo.updateMany([{ ...b, name: "renamed" }])).toBe(1);
    await gadgetRepo.upsert({ ...a, name: "again" });
    expect([await hits(a.id), await hits(b.id)]).toEqual([7, 7]);
    expect(gadgets.fields.map((f) => f.key)).not.toContain("hits");
    expect(gadgets.tableFields.map((f) => f.key)).toContain("hits");
    expect(() => defineResource({ table: "t", noun: "A t", columns: { id: id(), organizationId: internal(text()) } })).toThrow(/internal/);
  });

  it("a partial unique key binds only the rows its where admits, and words its conflict from the record", async () => {
    const gizmoRepo = createRepository(gizmos, setup.dialect, setup.executor, { open: true, writable: true });
    const a = { id: "gzm_1", organizationId: org, kind: "blue", code: "G-1", deletedAt: null };
    const b = { id: "gzm_2", organizationId: org, kind: "red", code: "G-1", deletedAt: null };
    await gizmoRepo.insert(a);
    expect(await conflictMessage(gizmoRepo.insert(b))).toBe("The organization already has a live red gizmo with this code");
    expect(await conflictMessage(gizmoRepo.insert({ ...b, id: a.id, code: "G-2" }))).toBe("A gizmo with this id already exists");
    // Soft-deleted (the column is not the declared softDelete here: the key's where alone decides).
    expect(await gizmoRepo.update({ ...a, deletedAt: "2026-03-01T00:00:00.000Z" })).toBe(true);
    await gizmoRepo.insert(b);
    expect(await conflictMessage(gizmoRepo.update({ ...a, kind: "green", deletedAt: null }))).toBe("The organization already has a live green gizmo with this code");
    expect(await gizmoRepo.findById(org, b.id)).toStrictEqual(b);
    expect(await gizmoRepo.findById(org, a.id)).toStrictEqual({ ...a, deletedAt: "2026-03-01T00:00:00.000Z" });
  });

  it("insertMany writes every record in batches, skips clashing ones and counts what it wrote", async () => {
    const records = Array.from({ length: 230 }, () => widget());
    expect(await repo.insertMany(records)).toBe(230);
    expect(await repo.insertMany([widget(), { ...records[0]!, code: "fresh" }, { ...widget(), code: records[1]!.code }])).toBe(1);
    expect(await repo.insertMany([])).toBe(0);
    const stored = await repo.list(org, {}, { limit: 1000, order: "asc" });
    expect(stored).toHaveLength(231);
    expect(stored[0]).toStrictEqual(records[0]);
  });

  it("upsert inserts, then overwrites only the mutable columns", async () => {
    const a = widget();
    await repo.upsert(a);
    await repo.upsert({ ...a, name: "renamed", madeAt: "2030-01-01T00:00:00.000Z" });
    expect(await repo.findById(org, a.id)).toStrictEqual({ ...a, name: "renamed" });
  });

  it("delete and deleteWhere remove the tenant's rows only, soft-deleted ones too", async () => {
    const [a, b, c] = [widget({ shape: "square" }), widget({ shape: "square", deletedAt: "2026-02-01T00:00:00.000Z" }), widget()];
    const theirs = widget({ organizationId: "org_other", shape: "square" });
    for (const w of [a, b, c, theirs]) await repo.insert(w);
    expect(await repo.deleteWhere(org, { shape: "square" })).toBe(2);
    expect(await repo.deleteWhere(org, { size: [] })).toBe(0);
    expect(await repo.delete("org_other", c.id)).toBe(false);
    expect(await repo.delete(org, c.id)).toBe(true);
    expect(await repo.delete(org, c.id)).toBe(false);
    expect(await repo.findById("org_other", theirs.id)).toStrictEqual(theirs);
    expect(await repo.list(org, {}, { limit: 10, order: "asc" })).toStrictEqual([]);
  });

  it("patchMany sets the same fields on the tenant's live records among the ids", async () => {
    const [a, b, gone] = [widget(), widget(), widget({ deletedAt: "2026-02-01T00:00:00.000Z" })];
    const theirs = widget({ organizationId: "org_other" });
    for (const w of [a, b, gone, theirs]) await repo.insert(w);
    const patch = { active: false, seenAt: "2026-06-01T00:00:00.000Z", tags: ["x"] };
    expect(await repo.patchMany(org, [a.id, b.id, gone.id, theirs.id], patch)).toBe(2);
    expect(await repo.findById(org, a.id)).toStrictEqual({ ...a, ...patch });
    expect(await repo.findById("org_other", theirs.id)).toStrictEqual(theirs);
    expect(await repo.patchMany(org, [], patch)).toBe(0);
    await expect(repo.patchMany(org, [a.id], { madeAt: "2030-01-01T00:00:00.000Z" })).rejects.toThrow(/not a column an update writes/);
  });

  it("a resource no tenant owns is read and written by its key alone, with its column constraint worded", async () => {
    const tallyRepo = createRepository(tallies, setup.dialect, setup.executor, { open: true, writable: true });
    const a = { name: "alpha", label: "A", score: 0.25, tags: ["x"] };
    await tallyRepo.insert(a);
    await tallyRepo.upsert({ ...a, score: 1.5 });
    expect(await tallyRepo.findById(null, "alpha")).toStrictEqual({ ...a, score: 1.5 });
    expect(await conflictMessage(tallyRepo.insert({ name: "beta", label: "A", score: 0, tags: [] }))).toBe("Another tally has this label");
    expect(await tallyRepo.list(null, { tags: ["x"] }, { limit: 5, order: "asc" })).toStrictEqual([{ ...a, score: 1.5 }]);
    expect(await tallyRepo.delete(null, "alpha")).toBe(true);
    await expect(repo.findById(null, "x")).rejects.toThrow(/scoped by tenant/);
  });

  it("reads a joined record from the same row by the prefix its columns were selected with", async () => {
    const tallyRepo = createRepository(tallies, setup.dialect, setup.executor, { open: true, writable: true });
    const a = { name: "alpha", label: "A", score: 0.5, tags: ["x"] };
    await tallyRepo.insert(a);
    const [row] = await setup.executor.all("SELECT name, name AS t_name, label AS t_label, score AS t_score, tags AS t_tags FROM tallies", []);
    expect(recordOf(tallies, row!, "t_")).toStrictEqual(a);
  });
});

describe("a stored record on SQLite", () => {
  let setup: Setup;
  let repo: ReturnType<typeof createRepository<typeof widgets>>;

  beforeAll(async () => {
    setup = await sqliteSetup();
    repo = createRepository(widgets, setup.dialect, setup.executor, { open: true, writable: true });
  });
  afterAll(() => setup.close());

  it("is the text a read would build from the row, after every kind of write", async () => {
    const text = fc.string({ unit: "grapheme", maxLength: 12 });
    const drawn = fc.record({
      name: text,
      shape: fc.constantFrom("round" as const, "square" as const),
      size: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      weight: fc.option(fc.maxSafeInteger(), { nil: null }),
      active: fc.boolean(),
      tags: fc.array(text, { maxLength: 3 }),
      labels: fc.array(fc.record({ name: text, colour: text }), { maxLength: 2 }),
      meta: fc.option(fc.record({ note: text }), { nil: null }),
      seenAt: fc.option(fc.constant("2026-05-06T07:08:09.010Z"), { nil: null }),
    });
    const compare = `SELECT ${storedRecordColumn} AS stored, ${recordObject(widgets.fields)} AS built FROM widgets`;
    await fc.assert(
      fc.asyncProperty(drawn, drawn, drawn, async (first, second, third) => {
        const [a, b] = [widget(first), widget(first)];
        await repo.insert(a);
        await repo.upsert(b);
        await repo.update({ ...a, ...second });
        await repo.updateMany([{ ...b, ...third }]);
        await repo.patchMany(org, [a.id], { tags: third.tags, meta: third.meta, active: third.active });
        await repo.upsert({ ...b, ...second });
        await setup.exec(`UPDATE widgets SET size = size + 1`); // SQL no repository wrote
        const rows = await setup.executor.all(compare, []);
        for (const row of rows) expect(row.stored).toBe(row.built);
        expect(await repo.findMany(org, [a.id, b.id])).toStrictEqual(rows.map((row) => JSON.parse(String(row.built)) as Widget).filter((w) => w.id === a.id || w.id === b.id).map((w) => ({ ...w, active: Boolean(w.active) })));
      }),
      { numRuns: 60 },
    );
  });
});

describe("indexes on SQLite", () => {
  it("a partial index that also holds its where's column covers a query naming it", async () => {
    const setup = await sqliteSetup();
    const plan = await setup.executor.all("EXPLAIN QUERY PLAN SELECT count(*) AS n FROM widgets WHERE organization_id = ? AND deleted_at IS NULL AND made_at >= ?", [org, "2026-01-01T00:00:00.000Z"]);
    expect(plan.map((row) => row.detail).join("\n")).toMatch(/USING COVERING INDEX widgets_live_made_at_idx \(organization_id=\? AND made_at>\?\)/);
    await setup.close();
  });
});

describe.skipIf(!postgresRuns)("JSON tags on PostgreSQL", () => {
  it("a filter on the objects' names is containment, which the column's GIN index serves", async () => {
    const setup = await postgresSetup();
    try {
      const condition = postgresDialect.jsonHasAny("labels", "$1", "name");
      await setup.exec("BEGIN");
      await setup.exec("SET LOCAL enable_seqscan = off");
      const plan = await setup.executor.all(`EXPLAIN SELECT id FROM widgets WHERE ${condition}`, [postgresDialect.jsonNames!(["urgent", "later"], "name")]);
      await setup.exec("COMMIT");
      expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toMatch(/Bitmap Index Scan on widgets_labels_idx/);
    } finally {
      await setup.close();
    }
  });
});

describe("statements on SQLite", () => {
  it("are prepared once per connection and reused", async () => {
    const db = new Database(":memory:");
    for (const statement of await generateSQLiteMigration(await generateSQLiteDrizzleJson({}), await generateSQLiteDrizzleJson({ widgets: sqliteTableOf(widgets) }))) db.exec(statement);
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    const repo = createRepository(widgets, sqliteDialect, sqliteExecutor(new Statements(db)), { open: true, writable: true });
    for (let i = 0; i < 3; i++) {
      const record = widget();
      await repo.insert(record);
      await repo.findById(org, record.id);
      await repo.list(org, { size: [i] }, { limit: 5, order: "asc", after: "" });
    }
    expect(prepared).toHaveLength(3);
    db.close();
  });
});
