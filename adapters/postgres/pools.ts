import pg from "pg";

const schemaNamePattern = /^[a-z_][a-z0-9_]*$/;

/** The schema casekit's tables live in, checked: it is written into statements as a quoted name. */
export function checkedSchema(schema: string | undefined): string | undefined {
  if (schema !== undefined && !schemaNamePattern.test(schema)) {
    throw new Error(`casekit: invalid schema name ${JSON.stringify(schema)}; use a-z, 0-9 and _, not starting with a digit`);
  }
  return schema;
}

/** Settles to nothing, whatever it is given: for outcomes that change nothing (a pool's stray errors). */
export const ignore = (): void => undefined;

/**
 * A pool casekit opens (and ends) itself. An idle connection the server drops must not crash the
 * process: pg removes it from the pool and emits an error nobody else would hear.
 */
export function ownPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("error", ignore);
  return pool;
}
