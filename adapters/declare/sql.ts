/**
 * The SQL of a declared resource, written once for every dialect. Texts are built once per
 * resource and dialect (lists: once per filter shape) and kept, so a request only binds values;
 * SQLite's executor then prepares each text once per connection, PostgreSQL's names it so the
 * server does the same.
 */
import type { Dialect } from "./dialect.js";
import type { Field, FilterSpec, Resource } from "./resource.js";
import { encodeValue } from "./rows.js";
import { likePattern } from "../shared/values.js";

export interface ResourceSql {
  /** Writes nothing on a clash with any unique key (see repository.ts). Binds every field. */
  insert: string;
  /** The live row of a tenant by id. */
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
}

/** A keyset page: rows past `after` (an id) in `order`, at most `limit`. */
export interface ListPage {
  limit: number;
  order: "asc" | "desc";
  after?: string | undefined;
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

function build(resource: Resource, dialect: Dialect): ResourceSql {
  const { table, fields, id, tenant, mutable } = resource;
  const p = dialect.param;
  const columns = fields.map((f) => f.name).join(", ");
  const live = liveCondition(resource);
  const scoped = (first: number) => `${tenant.name} = ${p(first)} AND ${id.name} = ${p(first + 1)}${live}`;
  const uniqueFields = (resource.spec.unique ?? []).map((unique) => unique.columns.map((key) => resource.byKey.get(key)!));
  const partial = (resource.spec.unique ?? []).map((unique) => (unique.where === undefined ? "" : ` AND (${unique.where})`));
  const probes = uniqueFields.map((keyFields, k) => `SELECT 1 AS taken FROM ${table} WHERE ${keyFields.map((f, i) => `${f.name} = ${p(i + 1)}`).join(" AND ")}${partial[k]} LIMIT 1`);
  return {
    insert: `INSERT INTO ${table} (${columns}) VALUES (${fields.map((_, i) => p(i + 1)).join(", ")}) ON CONFLICT DO NOTHING`,
    byId: `SELECT ${columns} FROM ${table} WHERE ${scoped(1)}`,
    update: `UPDATE ${table} SET ${mutable.map((f, i) => `${f.name} = ${p(i + 1)}`).join(", ")} WHERE ${scoped(mutable.length + 1)}`,
    updateFields: [...mutable, tenant, id],
    updateMayClash: uniqueFields.some((keyFields) => keyFields.some((f) => mutable.includes(f))),
    updateMany: dialect.recordset
      ? `UPDATE ${table} SET ${mutable.map((f) => `${f.name} = r.${f.name}`).join(", ")} FROM ${dialect.recordset(p(1), [tenant, id, ...mutable])} WHERE ${table}.${tenant.name} = r.${tenant.name} AND ${table}.${id.name} = r.${id.name}${liveCondition(resource, `${table}.`)}`
      : undefined,
    updateManyFields: [tenant, id, ...mutable],
    uniqueProbes: probes,
    uniqueFields,
  };
}

const liveCondition = (resource: Resource, qualifier = ""): string => (resource.softDelete ? ` AND ${qualifier}${resource.softDelete.name} IS NULL` : "");

/**
 * A tenant's live rows matching `filters`, one keyset page in id order. The text depends only on
 * which filters are given (and which bounds of a range), so it is built once per shape; values
 * are bound. An empty any-of list matches nothing: the caller gets null and runs no query.
 * `ids`, when given, restricts the rows to those ids.
 */
export function listQuery(
  resource: Resource,
  dialect: Dialect,
  tenantId: string,
  filters: object,
  page: ListPage,
  ids?: readonly string[],
): Query | null {
  const shape: string[] = [];
  const params: unknown[] = [tenantId];
  for (const [name, spec] of Object.entries(resource.filters)) {
    const value = (filters as Record<string, unknown>)[name];
    if (value === undefined) continue;
    const column = resource.byKey.get(spec.column)!.column;
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
      params.push(dialect.list(spec.kind === "anyOf" ? values.map((v) => encodeValue(column, v)) : values));
    } else if (spec.kind === "condition") {
      const encoded = encodeValue(column, value);
      for (let mark = 0; mark < marksOf(spec.sql); mark++) params.push(encoded);
    } else params.push(spec.kind === "contains" ? likePattern(value as string) : encodeValue(column, value));
    shape.push(name);
  }
  if (ids !== undefined) {
    params.push(dialect.list(ids));
    shape.push(idsShape);
  }
  if (page.after !== undefined) params.push(page.after);
  params.push(page.limit);
  const key = `${shape.join(",")}|${page.order}${page.after === undefined ? "" : ">"}`;
  const cache = perDialect(lists, dialect);
  let texts = cache.get(resource);
  if (!texts) cache.set(resource, (texts = new Map()));
  let text = texts.get(key);
  if (text === undefined) texts.set(key, (text = listText(resource, dialect, shape, page)));
  return { text, params };
}

/** The `?` marks of a declared condition, each bound to the filter's value. */
const marksOf = (sql: string): number => sql.split("?").length - 1;

/** The shape entry of a list restricted to some ids (no filter can be named so: it has a colon). */
const idsShape = ":ids";

function listText(resource: Resource, dialect: Dialect, shape: readonly string[], page: ListPage): string {
  const { table, fields, id, tenant } = resource;
  let n = 1;
  const next = () => dialect.param(++n);
  const where = [`${tenant.name} = ${dialect.param(1)}`];
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
  if (page.after !== undefined) where.push(`${id.name} ${page.order === "asc" ? ">" : "<"} ${next()}`);
  const columns = fields.map((f) => f.name).join(", ");
  return `SELECT ${columns} FROM ${table} WHERE ${where.join(" AND ")}${liveCondition(resource)} ORDER BY ${id.name} ${page.order.toUpperCase()} LIMIT ${next()}`;
}
