/**
 * The declared-resource checks (declared-suite.ts) run on resources declared here to use every
 * column kind, every filter kind and every kind of unique key (and one that no update writes), so
 * each model of the checks is exercised on both dialects before a stored resource first declares
 * that kind. Tables come from the derived drizzle tables through drizzle-kit's own DDL.
 */
import Database from "better-sqlite3";
import { generateDrizzleJson, generateMigration, generateSQLiteDrizzleJson, generateSQLiteMigration } from "drizzle-kit/api";
import pg from "pg";
import { bool, enumOf, float, id, int, json, nullableJson, text, timestamp } from "../../adapters/declare/columns.js";
import { defineResource } from "../../adapters/declare/resource.js";
import { pgTableOf } from "../../adapters/postgres/declared-table.js";
import { postgresDialect, postgresExecutor } from "../../adapters/postgres/dialect.js";
import { sqliteTableOf } from "../../adapters/sqlite/declared-table.js";
import { sqliteDialect, sqliteExecutor } from "../../adapters/sqlite/dialect.js";
import { Statements } from "../../adapters/sqlite/statements.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import type { DeclaredConnection } from "./declared-suite.js";
import { describeDeclaredResources } from "./declared-suite.js";

/** Tenant-scoped and soft-deleted, with every kind of column, filter and key. */
const specimens = defineResource({
  table: "specimens",
  noun: "A specimen",
  columns: {
    id: id(),
    organizationId: text(),
    code: text(),
    label: text({ nullable: true }),
    shape: enumOf(["round", "square", "flat"]),
    size: int(),
    weight: int({ nullable: true, big: true }),
    ratio: float({ nullable: true }),
    active: bool(),
    tags: json<string[]>(),
    labels: json<{ name: string }[]>(),
    meta: nullableJson<Record<string, unknown>>(),
    madeAt: timestamp(),
    seenAt: timestamp({ nullable: true }),
    deletedAt: timestamp({ nullable: true }),
  },
  softDelete: "deletedAt",
  fixed: ["madeAt"],
  unique: [
    { name: "specimens_code_unique", columns: ["organizationId", "code"], conflict: "The organization already has a specimen with this code" },
    {
      name: "specimens_live_label_unique",
      columns: ["organizationId", "label"],
      where: "deleted_at IS NULL",
      conflict: (specimen) => `A live ${String(specimen.shape)} specimen has this label`,
    },
  ],
  filters: {
    shape: { kind: "equals", column: "shape" },
    active: { kind: "equals", column: "active" },
    size: { kind: "anyOf", column: "size" },
    label: { kind: "anyOf", column: "label" },
    made: { kind: "range", column: "madeAt" },
    weight: { kind: "range", column: "weight" },
    seenFrom: { kind: "atLeast", column: "seenAt" },
    seenBefore: { kind: "below", column: "seenAt" },
    ratioBelow: { kind: "below", column: "ratio" },
    tags: { kind: "jsonTags", column: "tags" },
    labels: { kind: "jsonTags", column: "labels", key: "name" },
    code: { kind: "contains", column: "code" },
    small: { kind: "condition", column: "size", sql: "size <= ? OR weight <= ?" },
    sizeBetween: { kind: "condition", column: "size", sql: "size >= ? AND size <= ?", each: true },
  },
});

/** No tenant owns it: an unsorted key, and a one-column key kept as a column constraint. */
const ledgers = defineResource({
  table: "ledgers",
  noun: "A ledger",
  tenant: null,
  columns: {
    name: id({ unsorted: true }),
    title: text(),
    score: float(),
    tags: json<string[]>(),
  },
  unique: [{ name: "ledgers_title_unique", columns: ["title"], constraint: true, conflict: "Another ledger has this title" }],
  indexes: [{ name: "ledgers_tags_idx", columns: ["tags"], gin: true }],
  filters: { title: { kind: "contains", column: "title" }, tags: { kind: "jsonTags", column: "tags" } },
});

/** Append-only, as a log is: every column fixed, so no update is checked. */
const entries = defineResource({
  table: "entries",
  noun: "An entry",
  columns: { id: id(), organizationId: text(), at: timestamp(), body: json<Record<string, unknown>>() },
  fixed: ["at", "body"],
  filters: { at: { kind: "range", column: "at" } },
});

const resources = [specimens, ledgers, entries];

async function sqlite(): Promise<DeclaredConnection> {
  const db = new Database(":memory:");
  const tables = Object.fromEntries(resources.map((r) => [r.table, sqliteTableOf(r)]));
  for (const statement of await generateSQLiteMigration(await generateSQLiteDrizzleJson({}), await generateSQLiteDrizzleJson(tables))) db.exec(statement);
  return { dialect: sqliteDialect, executor: sqliteExecutor(new Statements(db)), exec: async (sql) => void db.exec(sql), close: async () => void db.close() };
}

async function postgres(): Promise<DeclaredConnection> {
  const schema = freshSchemaName("casekit_declared_kinds");
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`create schema "${schema}"`);
  await client.query(`set search_path = "${schema}"`);
  const tables = Object.fromEntries(resources.map((r) => [r.table, pgTableOf(r)]));
  for (const statement of await generateMigration(generateDrizzleJson({}), generateDrizzleJson(tables))) await client.query(statement);
  return {
    dialect: postgresDialect,
    executor: postgresExecutor(client),
    exec: async (sql) => void (await client.query(sql)),
    close: async () => {
      await client.query(`drop schema "${schema}" cascade`);
      await client.end();
    },
  };
}

describeDeclaredResources("sqlite (memory), every kind", sqlite, resources);
if (await postgresShouldRun("declared kinds")) describeDeclaredResources("postgres, every kind", postgres, resources);
