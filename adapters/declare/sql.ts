/**
 * The SQL of a declared resource, written once for every dialect. Texts are built once per
 * resource and dialect (lists: once per filter shape) and kept, so a request only binds values;
 * SQLite's executor then prepares each text once per connection, PostgreSQL's names it so the
 * server does the same.
 */
import type { Column } from "./columns.js";
import type { Dialect } from "./dialect.js";
import type { Field, FilterSpec, Resource } from "./resource.js";
import { encodeValue } from "./rows.js";
import { likePattern } from "../shared/values.js";

export interface ResourceSql {
  /** Writes nothing on a clash with any unique key (see repository.ts). Binds every field. */
  insert: string;
  /** The live record of a tenant by id (selected as the dialect's `selectRecord`: run with `executor.records`). */
  byId: string;
  /** Sets the mutable columns of a tenant's live row by id; binds `updateFields`. */
  update: string;
  updateFields: Field[];
  /** An update can clash on a unique key (one of its columns is mutable): run it guarded. */
  updateMayClash: boolean;
  /** Many updates in one statement, rows bound as one recordset (`updateManyFields` of each); undefined when the dialect has no recordset. */
  updateMany: string | undefined;
  updateManyFields: Field[];
  /** Per declared unique key: is it held by a row the index covers (all of them, or those its `where` admits)? Binds `uniqueFields[i]`. */
  uniqueProbes: string[];
  uniqueFields: Field[][];
  /** Inserts or, when the id is taken by the same tenant's row, overwrites the mutable columns (binds every field). */
  upsert: string;
  /** Removes a tenant's row by id, live or soft-deleted. Binds the scope (`scopeParams`). */
  delete: string;
}

/** A keyset page: rows past `after` (an id) in `order`, at most `limit`. */
export interface ListPage {
  limit: number;
  order: "asc" | "desc";
  after?: string | undefined;
  /** Soft-deleted rows too: only for the port's few reads that ask for them (an admin's view). */
  withDeleted?: boolean | undefined;
}

export interface Query {
  text: string;
  params: unknown[];
}

const built = new WeakMap<Dialect, WeakMap<Resource, ResourceSql>>();
const lists = new WeakMap<Dialect, WeakMap<Resource, Map<string, string>>>();

const perDialect = <T>(cache: WeakMap<Dialect, WeakMap<Resource, T>>, dialect: Dialect): WeakMap<Resource, T> => {
  let byResource = cache.get(dialect);
  if (!byResource) cache.set(dialect, (byResource = new WeakMap()));
  return byResource;
};

export function resourceSql(resource: Resource, dialect: Dialect): ResourceSql {
  const cache = perDialect(built, dialect);
  let statements = cache.get(resource);
  if (!statements) cache.set(resource, (statements = build(resource, dialect)));
  return statements;
}

/** A row's scope as statements bind it: the tenant's id (unless no tenant owns the resource), then the row's id. */
export function scopeParams(resource: Resource, tenantId: string | null, id: string): unknown[] {
  if (resource.tenant === undefined) return [id];
  if (tenantId === null) throw new Error(`casekit: ${resource.table} is scoped by tenant; pass its id`);
  return [tenantId, id];
}

/** `column = param` for the scope's first column (the tenant, or nothing), then the id: `first` is its first parameter. */
const scopeOf = (resource: Resource, dialect: Dialect, first: number, qualifier = ""): string =>
  resource.tenant === undefined
    ? `${qualifier}${resource.id.name} = ${dialect.param(first)}`
    : `${qualifier}${resource.tenant.name} = ${dialect.param(first)} AND ${qualifier}${resource.id.name} = ${dialect.param(first + 1)}`;

function build(resource: Resource, dialect: Dialect): ResourceSql {
  const { table, fields, id, tenant, mutable } = resource;
  const p = dialect.param;
  const columns = fields.map((f) => f.name).join(", ");
  const live = liveCondition(resource);
  const scoped = (first: number) => `${scopeOf(resource, dialect, first)}${live}`;
  const keyFields = tenant === undefined ? [id] : [tenant, id];
  const uniqueFields = (resource.spec.unique ?? []).map((unique) => unique.columns.map((key) => resource.byKey.get(key)!));
  const partial = (resource.spec.unique ?? []).map((unique) => (unique.where === undefined ? "" : ` AND (${unique.where})`));
  const probes = uniqueFields.map((keyFields, k) => `SELECT 1 AS taken FROM ${table} WHERE ${keyFields.map((f, i) => `${f.name} = ${p(i + 1)}`).join(" AND ")}${partial[k]} LIMIT 1`);
  return {
    insert: `INSERT INTO ${table} (${columns}) VALUES (${fields.map((_, i) => p(i + 1)).join(", ")}) ON CONFLICT DO NOTHING`,
    byId: `SELECT ${dialect.selectRecord(resource)} FROM ${table} WHERE ${scoped(1)}`,
    update: `UPDATE ${table} SET ${mutable.map((f, i) => `${f.name} = ${p(i + 1)}`).join(", ")} WHERE ${scoped(mutable.length + 1)}`,
    updateFields: [...mutable, ...keyFields],
    updateMayClash: uniqueFields.some((keyFields) => keyFields.some((f) => mutable.includes(f))),
    updateMany: dialect.recordset
      ? `UPDATE ${table} SET ${mutable.map((f) => `${f.name} = r.${f.name}`).join(", ")} FROM ${dialect.recordset(p(1), [...keyFields, ...mutable])} WHERE ${keyFields.map((f) => `${table}.${f.name} = r.${f.name}`).join(" AND ")}${liveCondition(resource, `${table}.`)}`
      : undefined,
    updateManyFields: [...keyFields, ...mutable],
    uniqueProbes: probes,
    uniqueFields,
    upsert: `INSERT INTO ${table} (${columns}) VALUES (${fields.map((_, i) => p(i + 1)).join(", ")}) ON CONFLICT (${id.name}) DO ${
      mutable.length === 0 ? "NOTHING" : `UPDATE SET ${mutable.map((f) => `${f.name} = excluded.${f.name}`).join(", ")}${tenant === undefined ? "" : ` WHERE ${table}.${tenant.name} = excluded.${tenant.name}`}`
    }`,
    delete: `DELETE FROM ${table} WHERE ${scopeOf(resource, dialect, 1)}`,
  };
}

const manyInserts = new WeakMap<Dialect, WeakMap<Resource, Map<number, string>>>();

/** Rows per multi-row insert of `resource`: 100, or fewer where the dialect's parameter limit needs it. */
export const rowsPerInsert = (resource: Resource, dialect: Dialect): number => Math.max(1, Math.min(100, Math.floor(dialect.maxParams / resource.fields.length)));

/**
 * `rows` rows in one INSERT that skips rows clashing with any unique key (the caller compares the
 * count written). One text per row count, kept: full batches reuse one prepared statement.
 */
export function insertManyText(resource: Resource, dialect: Dialect, rows: number): string {
  const cache = perDialect(manyInserts, dialect);
  let texts = cache.get(resource);
  if (!texts) cache.set(resource, (texts = new Map()));
  let text = texts.get(rows);
  if (text === undefined) {
    const width = resource.fields.length;
    const values = Array.from({ length: rows }, (_, r) => `(${resource.fields.map((_, c) => dialect.param(r * width + c + 1)).join(", ")})`);
    texts.set(rows, (text = `INSERT INTO ${resource.table} (${resource.fields.map((f) => f.name).join(", ")}) VALUES ${values.join(", ")} ON CONFLICT DO NOTHING`));
  }
  return text;
}

const patches = new WeakMap<Dialect, WeakMap<Resource, Map<string, string>>>();

/**
 * Sets `keys` (mutable columns, bound first in that order) on the tenant's live rows among a list
 * of ids (bound after the tenant): one statement for a bulk page. One text per set of keys, kept.
 */
export function patchText(resource: Resource, dialect: Dialect, keys: readonly string[]): string {
  const cache = perDialect(patches, dialect);
  let texts = cache.get(resource);
  if (!texts) cache.set(resource, (texts = new Map()));
  const shape = keys.join(",");
  let text = texts.get(shape);
  if (text === undefined) {
    const fields = keys.map((key) => {
      const field = resource.mutable.find((f) => f.key === key);
      if (!field) throw new Error(`casekit: ${resource.table}.${key} is not a column an update writes`);
      return field;
    });
    let n = 0;
    const next = () => dialect.param(++n);
    const set = fields.map((f) => `${f.name} = ${next()}`).join(", ");
    const scope = resource.tenant === undefined ? "" : `${resource.tenant.name} = ${next()} AND `;
    texts.set(shape, (text = `UPDATE ${resource.table} SET ${set} WHERE ${scope}${dialect.anyOf(resource.id.name, next())}${liveCondition(resource)}`));
  }
  return text;
}

const liveCondition = (resource: Resource, qualifier = "", joiner = " AND "): string =>
  resource.softDelete ? `${joiner}${qualifier}${resource.softDelete.name} IS NULL` : "";

/**
 * A tenant's live rows (soft-deleted ones too with `page.withDeleted`) matching `filters`, one
 * keyset page in id order. The text depends only on which filters are given (and which bounds of
 * a range), so it is built once per shape; values are bound. An empty any-of list matches
 * nothing: the caller gets null and runs no query. `ids`, when given, restricts the rows to those
 * ids. Rows are selected as the dialect's `selectRecord`: run the text with `executor.records`.
 */
export function listQuery(
  resource: Resource,
  dialect: Dialect,
  tenantId: string | null,
  filters: object,
  page: ListPage,
  ids?: readonly string[],
): Query | null {
  const found = matching(resource, dialect, tenantId, filters, ids);
  if (found === null) return null;
  const { shape, params } = found;
  if (page.after !== undefined) params.push(page.after);
  params.push(page.limit);
  const key = `${shape.join(",")}|${page.order}${page.after === undefined ? "" : ">"}${page.withDeleted ? "+deleted" : ""}`;
  return { text: cachedText(lists, resource, dialect, key, () => listText(resource, dialect, shape, page)), params };
}

/**
 * Deletes the tenant's rows matching `filters` (soft-deleted ones too: a delete is a purge);
 * null when the filters match nothing by construction (an empty any-of list).
 */
export function deleteQuery(resource: Resource, dialect: Dialect, tenantId: string | null, filters: object): Query | null {
  const found = matching(resource, dialect, tenantId, filters);
  if (found === null) return null;
  const { shape, params } = found;
  return {
    text: cachedText(deletes, resource, dialect, shape.join(","), () => `DELETE FROM ${resource.table}${whereOf(resource, dialect, shape).where.map((c, i) => `${i === 0 ? " WHERE" : " AND"} ${c}`).join("")}`),
    params,
  };
}

const deletes = new WeakMap<Dialect, WeakMap<Resource, Map<string, string>>>();

function cachedText(cache: WeakMap<Dialect, WeakMap<Resource, Map<string, string>>>, resource: Resource, dialect: Dialect, key: string, build: () => string): string {
  const byResource = perDialect(cache, dialect);
  let texts = byResource.get(resource);
  if (!texts) byResource.set(resource, (texts = new Map()));
  let text = texts.get(key);
  if (text === undefined) texts.set(key, (text = build()));
  return text;
}

/** The shape of a filtered statement (which filters, which bounds) and its parameters, tenant first. */
function matching(resource: Resource, dialect: Dialect, tenantId: string | null, filters: object, ids?: readonly string[]): { shape: string[]; params: unknown[] } | null {
  const shape: string[] = [];
  const params: unknown[] = [];
  if (resource.tenant !== undefined) {
    if (tenantId === null) throw new Error(`casekit: ${resource.table} is scoped by tenant; pass its id`);
    params.push(tenantId);
  }
  // The filters given, by name: a list asks for a handful of a resource's twenty-odd filters, and
  // asking the object itself for each absent one took a slow lookup every time (its shape varies).
  const given = new Map<string, unknown>();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) given.set(name, value);
  for (const { name, spec, column, marks } of filterEntriesOf(resource)) {
    const value = given.get(name);
    if (value === undefined) continue;
    if (spec.kind === "range") {
      const { after, before } = value as { after?: unknown; before?: unknown };
      if (after !== undefined) params.push(encodeValue(column, after));
      if (before !== undefined) params.push(encodeValue(column, before));
      shape.push(`${name}:${after !== undefined ? "a" : ""}${before !== undefined ? "b" : ""}`);
      continue;
    }
    if (spec.kind === "anyOf" || spec.kind === "jsonTags") {
      const values = value as readonly unknown[];
      if (values.length === 0) return null;
      if (spec.kind === "anyOf" && values.length === 1) {
        params.push(encodeValue(column, values[0]));
        shape.push(`${name}:1`);
        continue;
      }
      if (spec.kind === "jsonTags") params.push(dialect.jsonNames ? dialect.jsonNames(values as readonly string[], spec.key) : dialect.list(values));
      else params.push(dialect.list(values.map((v) => encodeValue(column, v))));
    } else if (spec.kind === "condition" || spec.kind === "idAmong") {
      if (spec.holdsFrom !== undefined && typeof value === "number" && value >= spec.holdsFrom) continue;
      if (spec.each) {
        const values = value as readonly unknown[];
        if (values.length !== marks) throw new Error(`casekit: filter ${name} binds ${marks} values, was given ${values.length}`);
        for (const one of values) params.push(encodeValue(column, one));
      } else {
        const encoded = encodeValue(column, value);
        for (let mark = 0; mark < marks; mark++) params.push(encoded);
      }
    } else params.push(spec.kind === "contains" ? likePattern(value as string) : encodeValue(column, value));
    shape.push(name);
  }
  if (ids !== undefined) {
    params.push(dialect.list(ids));
    shape.push(idsShape);
  }
  return { shape, params };
}

/** The `?` marks of a declared condition, each bound to the filter's value (or, with `each`, to its values in order). */
const marksOf = (sql: string): number => sql.split("?").length - 1;

interface FilterEntry {
  name: string;
  spec: FilterSpec<string>;
  column: Column;
  /** A condition's `?` marks (0 for other kinds). */
  marks: number;
}

/**
 * A resource's filters with their columns and marks, worked out once per resource: every list
 * and count walks them, and building the entries and splitting the conditions per request was
 * garbage on the hottest read.
 */
const filterEntries = new WeakMap<Resource, readonly FilterEntry[]>();
function filterEntriesOf(resource: Resource): readonly FilterEntry[] {
  let entries = filterEntries.get(resource);
  if (entries === undefined) {
    entries = Object.entries(resource.filters).map(([name, spec]) => ({
      name,
      spec: spec as FilterSpec<string>,
      column: resource.byKey.get(spec.column)!.column,
      marks: spec.kind === "condition" || spec.kind === "idAmong" ? marksOf(spec.sql) : 0,
    }));
    filterEntries.set(resource, entries);
  }
  return entries;
}

/** The shape entry of a list restricted to some ids (no filter can be named so: it has a colon). */
const idsShape = ":ids";

function listText(resource: Resource, dialect: Dialect, shape: readonly string[], page: ListPage): string {
  const { table, id } = resource;
  const { where, next } = whereOf(resource, dialect, shape);
  if (page.after !== undefined) where.push(`${id.name} ${page.order === "asc" ? ">" : "<"} ${next()}`);
  const conditions = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
  const live = page.withDeleted ? "" : liveCondition(resource, "", conditions === "" ? " WHERE " : " AND ");
  return `SELECT ${dialect.selectRecord(resource)} FROM ${table}${conditions}${live} ORDER BY ${id.name} ${page.order.toUpperCase()} LIMIT ${next()}`;
}

/** The conditions of a shape, in parameter order (the tenant first), and the next placeholder. */
function whereOf(resource: Resource, dialect: Dialect, shape: readonly string[]): { where: string[]; next: () => string } {
  const { id, tenant } = resource;
  let n = 0;
  const next = () => dialect.param(++n);
  const where = tenant === undefined ? [] : [`${tenant.name} = ${next()}`];
  for (const entry of shape) {
    if (entry === idsShape) {
      where.push(dialect.anyOf(id.name, next()));
      continue;
    }
    const [name, bounds] = entry.split(":") as [string, string | undefined];
    const spec = resource.filters[name] as FilterSpec<string>;
    const column = resource.byKey.get(spec.column)!.name;
    switch (spec.kind) {
      case "equals":
        where.push(`${column} = ${next()}`);
        break;
      case "anyOf":
        where.push(bounds === "1" ? `${column} = ${next()}` : dialect.anyOf(column, next()));
        break;
      case "atLeast":
        where.push(`${column} >= ${next()}`);
        break;
      case "below":
        where.push(`${column} < ${next()}`);
        break;
      case "condition":
        where.push(`(${spec.sql.replace(/\?/g, () => next())})`);
        break;
      case "idAmong":
        where.push(`(${dialect.idAmong(`${resource.table}.${id.name}`, spec.sql.replace(/\?/g, () => next()))})`);
        break;
      case "jsonTags":
        where.push(dialect.jsonHasAny(column, next(), spec.key));
        break;
      case "contains":
        where.push(dialect.containsText(column, next()));
        break;
      case "range":
        if (bounds!.includes("a")) where.push(`${column} > ${next()}`);
        if (bounds!.includes("b")) where.push(`${column} < ${next()}`);
        break;
    }
  }
  return { where, next };
}
