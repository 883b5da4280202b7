/**
 * Issue 12 item 11, against storage: a string with NUL or an unpaired surrogate never reaches a
 * database through the services, on SQLite and on PostgreSQL alike (PostgreSQL's text and jsonb
 * would refuse NUL with an error, SQLite's UTF-8 would keep U+FFFD instead of a lone surrogate:
 * both are refused before either sees them), and `casekit copy` moves the SQLite deployment that
 * was attacked into PostgreSQL without meeting one.
 *
 * Every operation with a request body is called with bodies the OpenAPI document calls valid
 * (test/helpers/openapi-fuzz.ts), each with a marked hostile character slipped into one string or
 * member name: every answer is 400 validation_failed (404 where the path names no record), and
 * afterwards no table of either database holds the mark. A webhook receiver's answer holding NUL
 * and a lone surrogate (text kept, not judged) is stored with U+FFFD in their place on both. Same
 * PostgreSQL rule as the conformance
 * suite (test/helpers/postgres.ts): skipped with a warning without a server, a failure in CI.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { copySqliteToPostgres } from "../../adapters/copy/sqlite-to-postgres.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { createCaseKit, ManualClock } from "../../core/index.js";
import type { Storage } from "../../core/index.js";
import { apiBasePath, buildOpenApiDocument, createCaseKitApp } from "../../server/index.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";
import { hostileCharacters, poisoned, stringPlaces } from "../helpers/hostile-text.js";
import { keyHashSecret } from "../helpers/kit.js";
import { fuzzHarness, requestInit, seedThroughApi, toAnswer } from "../helpers/openapi-fuzz.js";
import type { Json, Send } from "../helpers/openapi-fuzz.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";

const postgres = await postgresShouldRun("hostile input against storage");
const mark = "zzhostilemark";
const dir = mkdtempSync(join(tmpdir(), "casekit-hostile-"));
const sqliteFile = join(dir, "casekit.db");
const schemas: string[] = [];
let pool: pg.Pool | undefined;

afterAll(async () => {
  if (pool) {
    for (const schema of schemas) await pool.query(`drop schema if exists "${schema}" cascade`);
    await pool.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Drives every body-taking operation with poisoned valid bodies (all refused), then records a
 * webhook receiver's answer that holds NUL and a lone surrogate (kept, made storable).
 */
async function attack(storage: Storage): Promise<void> {
  await storage.migrate();
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock: new ManualClock("2026-03-01T12:00:00.000Z"), config: { keyHashSecret } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const app = createCaseKitApp(kit);
  const send: Send = async (method, path, key, body) => toAnswer(await app.fetch(new Request(`http://casekit.test${path}`, requestInit(method, key, body))));
  const doc = buildOpenApiDocument() as Json;
  const fuzz = fuzzHarness(doc, await seedThroughApi(send, init.apiKey));
  const withBody = fuzz.operations.filter((op) => op.definition.requestBody);
  expect(withBody.length).toBeGreaterThan(20);

  for (const op of withBody) {
    const attempts = fc.sample(
      fc.tuple(fuzz.requests(op).filter((g) => g.kind === "valid" && g.body !== undefined), fc.nat(), fc.constantFrom(...hostileCharacters)),
      { numRuns: 4, seed: 42 },
    );
    for (const [generated, pick, bad] of attempts) {
      const places = stringPlaces(generated.body);
      const place = places.length > 0 ? places[pick % places.length]! : { path: [mark], key: true };
      const target = places.length > 0 ? generated.body : { ...(generated.body as Json), [mark]: 1 };
      const { value } = poisoned(target, place.path, place.key, `${mark}${bad}`);
      const { answer, path } = await fuzz.sendGenerated(op, { ...generated, body: value }, send, init.apiKey);
      const where = `${op.label} ${path}: ${answer.status} ${answer.text.slice(0, 300)}`;
      expect([400, 404], where).toContain(answer.status);
      if (answer.status === 400) expect(answer.body?.code, where).toBe("validation_failed");
    }
  }

  // What comes from outside and is kept, not judged (a receiver's answer), is made storable.
  const hook = (await send("POST", `${apiBasePath}/webhooks`, init.apiKey, { name: "Receiver", url: "https://hooks.example.com/in", events: ["team.deleted"], maxRetries: 0 })).body as Json;
  const delivery = (await send("POST", `${apiBasePath}/webhooks/${hook.id}/test`, init.apiKey, undefined)).body as Json;
  const dispatcher = kit.createDispatcher({ transport: { send: async () => ({ status: 200, retryAfter: null, body: "ok\u0000\uD800!", durationMs: 1 }) }, random: () => 0 });
  let attempts: Json[] = [];
  for (let step = 0; step < 50 && attempts.length === 0; step++) {
    await dispatcher.step();
    const history = (await send("GET", `${apiBasePath}/webhooks/${hook.id}/deliveries`, init.apiKey, undefined)).body as Json;
    attempts = (history.data as Json[]).find((d) => d.id === delivery.id)?.attempts ?? [];
  }
  expect(attempts.map((a) => a.responseBody)).toEqual(["ok\uFFFD\uFFFD!"]);
  await storage.close();
}

/** Table rows of the SQLite file that hold the mark. */
function markedInSqlite(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[];
    return tables.flatMap(({ name }) => (db.prepare(`select * from "${name}"`).all() as unknown[]).filter((row) => JSON.stringify(row).includes(mark)).map(() => name));
  } finally {
    db.close();
  }
}

/** Table rows of a PostgreSQL schema that hold the mark. */
async function markedInPostgres(schema: string): Promise<string[]> {
  const tables = (await pool!.query("select table_name from information_schema.tables where table_schema = $1", [schema])).rows as { table_name: string }[];
  const marked: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = (await pool!.query(`select * from "${schema}"."${table}"`)).rows as unknown[];
    if (rows.some((row) => JSON.stringify(row).includes(mark))) marked.push(table);
  }
  return marked;
}

describe("hostile text never reaches storage", () => {
  it("SQLite: every body-taking operation refuses it, and no table holds it", async () => {
    await attack(createSqliteStorage({ path: sqliteFile }));
    expect(markedInSqlite(sqliteFile)).toEqual([]);
  }, 60_000);

  describe.runIf(postgres)("PostgreSQL", () => {
    it("every body-taking operation refuses it with 400 (never a database error), and no table holds it", async () => {
      pool ??= new pg.Pool({ connectionString: postgresUrl });
      const schema = freshSchemaName("casekit_hostile");
      schemas.push(schema);
      await attack(createPostgresStorage({ connectionString: postgresUrl, schema }));
      expect(await markedInPostgres(schema)).toEqual([]);
    }, 60_000);

    it("casekit copy moves the attacked SQLite deployment into PostgreSQL, and no table holds the mark there either", async () => {
      pool ??= new pg.Pool({ connectionString: postgresUrl });
      const schema = freshSchemaName("casekit_hostile_copy");
      schemas.push(schema);
      const result = await copySqliteToPostgres({ sqlitePath: sqliteFile, connectionString: postgresUrl, schema });
      expect(result.tables.find((t) => t.table === "cases")?.rows).toBeGreaterThan(0);
      expect(await markedInPostgres(schema)).toEqual([]);
    }, 60_000);
  });
});
