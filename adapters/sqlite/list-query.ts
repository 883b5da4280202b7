/**
 * WHERE clauses of the keyset lists (cases, users, API keys, teams, the TLP audit log), built one
 * member at a time. Every list starts from `organization_id = ?`, orders by id DESC (newest
 * first) and takes `beforeId` as its keyset position.
 *
 * A one-value list becomes `col = ?`, so an (organization_id, col, id) index yields rows already
 * in order; several values become `col IN (SELECT value FROM json_each(?))`, one bound JSON array,
 * so the statement's text (and its cached preparation) depends on which members are present, not
 * on how many values they hold.
 */
export class Conditions {
  readonly where: string[] = [];
  readonly params: unknown[] = [];

  constructor(organizationId: string) {
    this.add("organization_id = ?", organizationId);
  }

  /** A condition with its parameters, as written. */
  add(condition: string, ...params: unknown[]): this {
    this.where.push(condition);
    this.params.push(...params);
    return this;
  }

  /** `column = value`, when a value is given. */
  equals(column: string, value: unknown): this {
    return value === undefined ? this : this.add(`${column} = ?`, value);
  }

  /** `column` is any of `values`, when given (an empty list is the caller's to refuse first). */
  anyOf(column: string, values: readonly unknown[] | undefined): this {
    if (values === undefined) return this;
    if (values.length === 1) return this.add(`${column} = ?`, values[0]);
    return this.add(`${column} IN (SELECT value FROM json_each(?))`, JSON.stringify(values));
  }

  /** The whole statement: `select` narrowed by the conditions and the keyset, newest first. */
  page(select: string, limit: number, beforeId: string | undefined): { text: string; params: unknown[] } {
    const where = beforeId === undefined ? this.where : [...this.where, "id < ?"];
    const params = beforeId === undefined ? [...this.params, limit] : [...this.params, beforeId, limit];
    return { text: `${select} WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`, params };
  }
}
