import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresExecutor } from "../../adapters/postgres/dialect.js";
import { sendQuery } from "../../adapters/postgres/send-query.js";
import { postgresShouldRun, postgresUrl } from "../helpers/postgres.js";

/** A call of node-postgres's `query` on anything (a client, a pool), with or without type arguments. */
const calls = /\.query\b\s*[<(]/;

const folders = ["../../adapters/postgres/", "../../adapters/copy/"].map((folder) => new URL(folder, import.meta.url).pathname);

describe("casekit's own PostgreSQL statements go through sendQuery", () => {
  // node-postgres's promise form kept several queries' allocations reachable at every
  // young-generation collection (6–10 ms pauses, a 12 ms p99 for a 250-row page);
  // adapters/postgres/send-query.ts says what was measured. drizzle's migrator and the copy
  // tool's drizzle inserts send their own statements; everything casekit writes itself is here.
  it("calls no client.query or pool.query in adapters/postgres or adapters/copy outside send-query.ts", () => {
    const files = folders.flatMap((folder) => readdirSync(folder).filter((name) => name.endsWith(".ts") && name !== "send-query.ts").map((name) => join(folder, name)));
    expect(files.length).toBeGreaterThan(6);
    const offenders = files.filter((file) => calls.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("the rule finds every form of the call, generic arguments included", () => {
    for (const call of ["client.query(text)", "pool.query (text)", "client.query<Record<string, unknown>>({ text })", "client.query<{ a: Array<string> }>(text)"]) expect(calls.test(call), call).toBe(true);
    expect(calls.test("sendQuery(client, text)")).toBe(false);
  });
});

describe.runIf(await postgresShouldRun("postgres-send-query"))("sendQuery", () => {
  const client = new pg.Client({ connectionString: postgresUrl });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  it("answers rows, with parameters, named or not", async () => {
    expect((await sendQuery<{ n: number }>(client, "select $1::int + 1 as n", [41])).rows).toEqual([{ n: 42 }]);
    expect((await sendQuery<{ n: number }>(client, "select $1::int * 2 as n", [21], "casekit_test_send_query")).rows).toEqual([{ n: 42 }]);
    expect((await sendQuery<{ n: number }>(client, "select $1::int * 2 as n", [4], "casekit_test_send_query")).rows).toEqual([{ n: 8 }]);
    expect((await sendQuery(client, "select 1")).rowCount).toBe(1);
  });

  it("rejects with the server's error, its stack leading back to the caller, and the connection stays usable", async () => {
    async function callerThatSendsBadSql() {
      const result = await sendQuery(client, "select * from no_such_table_for_send_query");
      return result.rows;
    }
    const error = await callerThatSendsBadSql().then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(pg.DatabaseError);
    expect((error as pg.DatabaseError).code).toBe("42P01");
    expect((error as Error).stack).toContain("callerThatSendsBadSql");
    expect((await sendQuery<{ ok: boolean }>(client, "select true as ok")).rows).toEqual([{ ok: true }]);
  });
});

describe.runIf(await postgresShouldRun("postgres-executor-guarded"))("postgresExecutor: statements sent while a guarded one runs", () => {
  const client = new pg.Client({ connectionString: postgresUrl });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  // A bulk reads its next page while it writes this one. A statement sent between a guarded
  // statement's SAVEPOINT and its ROLLBACK TO would fail with it (the transaction is aborted
  // until then): it waits, and the unit goes on as if the two had been sent one after the other.
  it("a guarded statement that fails undoes only itself; the statements sent meanwhile succeed, in order", async () => {
    const executor = postgresExecutor(client);
    await sendQuery(client, "BEGIN");
    try {
      await sendQuery(client, "CREATE TEMP TABLE guarded_probe (id int PRIMARY KEY, note text) ON COMMIT DROP");
      await executor.run("INSERT INTO guarded_probe VALUES ($1, $2)", [1, "first"]);
      const clash = executor.guarded("INSERT INTO guarded_probe VALUES ($1, $2)", [1, "clash"]);
      const meanwhile = [executor.all("SELECT note FROM guarded_probe ORDER BY id", []), executor.run("INSERT INTO guarded_probe VALUES ($1, $2)", [2, "second"]), executor.all("SELECT count(*)::int AS n FROM guarded_probe", [])];
      await expect(clash).rejects.toMatchObject({ code: "23505" });
      const [notes, inserted, counted] = await Promise.all(meanwhile);
      expect(notes).toEqual([{ note: "first" }]);
      expect(inserted).toBe(1);
      expect(counted).toEqual([{ n: 2 }]);
      // Two guarded statements sent together run one after the other.
      const both = await Promise.allSettled([executor.guarded("INSERT INTO guarded_probe VALUES ($1, $2)", [2, "clash"]), executor.guarded("INSERT INTO guarded_probe VALUES ($1, $2)", [3, "third"])]);
      expect(both.map((outcome) => outcome.status)).toEqual(["rejected", "fulfilled"]);
      expect(await executor.all("SELECT id, note FROM guarded_probe ORDER BY id", [])).toEqual([
        { id: 1, note: "first" },
        { id: 2, note: "second" },
        { id: 3, note: "third" },
      ]);
    } finally {
      await sendQuery(client, "ROLLBACK");
    }
  });
});
