/**
 * A new API key's secret is shown once, in the create response, and kept nowhere: not in any row
 * of any table, not in the raw bytes of the database file or its WAL, not in an access-log line,
 * an audit entry, a TLP audit entry or a console message, and not in any later response. Only an
 * HMAC-SHA256 under the deployment's key-hash secret is stored (not a plain SHA-256).
 *
 * The keys are created over HTTP twice (by an admin key at /api/v1/api-keys and by a signed-in
 * person at /account/api-keys), then used for requests that succeed and requests that fail,
 * including one that carries the secret in the query string.
 */
import { createHash, createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { MockInstance } from "vitest";
import { createCaseKit, ManualClock } from "../../core/index.js";
import type { CaseKit, Storage } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { apiBasePath, createCaseKitApp } from "../../server/index.js";
import type { AccessLogLine } from "../../server/index.js";
import { keyHashSecret } from "../helpers/kit.js";
import { bearer, inProcess } from "./http.js";
import type { Answer, RequestSpec, Transport } from "./http.js";
import { validCase } from "./world.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const api = apiBasePath;
const adminEmail = "admin@acme.test";
const adminPassword = "correct horse battery staple 42";
const secretPattern = /^ck_live_([0-9A-Za-z]{32})_[0-9A-Za-z]{6}$/;
/** How many random characters the display `start` shows after `ck_live_`. */
const startRandomChars = 4;

interface Recorded {
  method: string;
  path: string;
  answer: Answer;
}

/** A transport that keeps every exchange, so every later response can be searched. */
function recording(inner: Transport, into: Recorded[]): Transport {
  return {
    name: `${inner.name} (recorded)`,
    async send(method, path, spec) {
      const answer = await inner.send(method, path, spec);
      into.push({ method, path, answer });
      return answer;
    },
    close: () => inner.close(),
  };
}

/** A secret and the parts of it that must never be found anywhere. */
interface Needle {
  label: string;
  value: string;
}

function needlesOf(name: string, secret: string): Needle[] {
  const match = secretPattern.exec(secret);
  if (!match) throw new Error(`${name} is not a key secret: ${secret.slice(0, 12)}…`);
  const random = match[1]!;
  return [
    { label: `${name}: the whole secret`, value: secret },
    { label: `${name}: its random part`, value: random },
    // `start` shows the prefix and the first random characters; the rest must appear nowhere.
    { label: `${name}: its random part beyond the display start`, value: random.slice(startRandomChars) },
    { label: `${name}: its plain SHA-256 (hex)`, value: createHash("sha256").update(secret).digest("hex") },
    { label: `${name}: its plain SHA-256 (base64)`, value: createHash("sha256").update(secret).digest("base64") },
  ];
}

/** The labels of the needles found in the text (empty when it is clean). */
function found(text: string, needles: readonly Needle[]): string[] {
  return needles.filter((n) => text.includes(n.value)).map((n) => n.label);
}

/** The labels of the needles found in raw bytes, as UTF-8 (SQLite's encoding) and as UTF-16LE. */
function foundInBytes(bytes: Buffer, needles: readonly Needle[]): string[] {
  return needles.filter((n) => bytes.includes(Buffer.from(n.value, "utf8")) || bytes.includes(Buffer.from(n.value, "utf16le"))).map((n) => n.label);
}

const cellText = (value: unknown): string => (Buffer.isBuffer(value) ? `${value.toString("latin1")} ${value.toString("hex")}` : String(value));

describe("a new API key's secret is shown once and kept nowhere", () => {
  let dir: string;
  let file: string;
  let db: Database.Database;
  let storage: Storage;
  let kit: CaseKit;
  let clock: ManualClock;
  let client: Transport;
  const exchanges: Recorded[] = [];
  const logs: AccessLogLine[] = [];
  let consoleSpies: MockInstance[] = [];

  let adminKey: string;
  /** Created by the admin key over /api/v1/api-keys: cases:read only. */
  let viaApi: { answer: Answer; secret: string; id: string };
  /** Created by the signed-in admin over /account/api-keys: cases:read and cases:write. */
  let viaAccount: { answer: Answer; secret: string; id: string };
  let sessionToken: string;
  let needles: Needle[];
  /** What the new secrets' requests answered, by purpose. */
  const uses: Record<string, Answer> = {};

  const as = (headers: RequestSpec["headers"]) => ({
    get: (path: string) => client.send("GET", path, { headers }),
    post: (path: string, body?: unknown) => client.send("POST", path, { headers, body }),
  });
  const minutes = (n: number) => clock.advance(n * 60_000);

  beforeAll(async () => {
    consoleSpies = (["log", "info", "warn", "error", "debug", "trace"] as const).map((method) => vi.spyOn(console, method));
    dir = mkdtempSync(join(tmpdir(), "casekit-secret-leak-"));
    file = join(dir, "casekit.db");
    db = new Database(file);
    storage = createSqliteStorage({ database: db });
    await storage.migrate();
    clock = new ManualClock("2026-03-01T12:00:00.000Z");
    kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret } });
    const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: adminEmail, password: adminPassword });
    adminKey = init.apiKey;
    client = recording(inProcess(createCaseKitApp(kit, { logger: (line) => logs.push(line) })), exchanges);

    // 1. A key manager creates a key over the API.
    const created = await as(bearer(adminKey)).post(`${api}/api-keys`, { name: "SIEM connector", scopes: ["cases:read"], tlpClearance: 2 });
    expect(created.status, created.text).toBe(200);
    viaApi = { answer: created, secret: created.body.key, id: created.body.id };

    // 2. A person signs in to the account area and creates a key of their own.
    const signedIn = await client.send("POST", "/account/sign-in", { body: { email: adminEmail, password: adminPassword } });
    expect(signedIn.status, signedIn.text).toBe(200);
    sessionToken = /casekit_session=([^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1] ?? "";
    expect(sessionToken).not.toBe("");
    const session: RequestSpec["headers"] = [
      ["Cookie", `casekit_session=${sessionToken}`],
      ["X-CSRF-Token", signedIn.body.csrfToken],
    ];
    const mine = await as(session).post("/account/api-keys", { name: "My laptop", scopes: ["cases:read", "cases:write"] });
    expect(mine.status, mine.text).toBe(200);
    viaAccount = { answer: mine, secret: mine.body.key, id: mine.body.id };

    needles = [...needlesOf("API-created key", viaApi.secret), ...needlesOf("account-created key", viaAccount.secret)];

    // 3. The new secrets at work: some requests succeed, some fail.
    const a = viaApi.secret;
    const b = viaAccount.secret;
    uses.health = await as(bearer(a)).get(`${api}/health`);
    uses.listCases = await as([["X-Api-Key", a]]).get(`${api}/cases`);
    uses.createCaseWithoutScope = await as(bearer(a)).post(`${api}/cases`, validCase);
    uses.listKeysWithoutScope = await as(bearer(a)).get(`${api}/api-keys`);
    minutes(2); // past lastUsedAt's resolution: the key row is written again
    uses.createCase = await as(bearer(b)).post(`${api}/cases`, { ...validCase, tlp: 4 });
    uses.readRedCaseAboveClearance = await as(bearer(a)).get(`${api}/cases/${uses.createCase.body?.id}`);
    uses.readRedCase = await as(bearer(b)).get(`${api}/cases/${uses.createCase.body?.id}`);
    uses.secretInQuery = await as([]).get(`${api}/health?api_key=${encodeURIComponent(a)}`);
    uses.secretInQueryBesideHeader = await as(bearer(b)).get(`${api}/cases?token=${encodeURIComponent(b)}`);
    uses.typo = await as(bearer(`${a.slice(0, -1)}${a.endsWith("A") ? "B" : "A"}`)).get(`${api}/health`);

    // 4. Suspended and resumed by the key manager, then used again.
    minutes(2);
    uses.suspend = await as(bearer(adminKey)).post(`${api}/api-keys/${viaApi.id}/suspend`);
    uses.whileSuspended = await as(bearer(a)).get(`${api}/health`);
    uses.resume = await as(bearer(adminKey)).post(`${api}/api-keys/${viaApi.id}/resume`);
    uses.afterResume = await as(bearer(a)).get(`${api}/health`);

    // 5. Everything that shows keys afterwards.
    for (const id of [viaApi.id, viaAccount.id]) {
      await as(bearer(adminKey)).get(`${api}/api-keys/${id}`);
      await as(session).get(`/account/api-keys/${id}`);
    }
    await as(bearer(adminKey)).get(`${api}/api-keys`);
    await as(session).get("/account/api-keys");
    await as(bearer(adminKey)).get(`${api}/tlp/audit-logs?limit=500`);
    await as(bearer(adminKey)).get(`${api}/users`);
    await as(bearer(adminKey)).get(`${api}/organization`);
  });

  afterAll(async () => {
    for (const spy of consoleSpies) spy.mockRestore();
    await storage?.close();
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every row of every table, as text, table by table. */
  function dumpTables(): Map<string, string[]> {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    const dump = new Map<string, string[]>();
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all() as Record<string, unknown>[];
      dump.set(
        name,
        rows.map((row) => Object.entries(row).map(([column, value]) => `${column}=${cellText(value)}`).join("\t")),
      );
    }
    return dump;
  }

  it("shows each secret once, in `key` of its create response, with a matching display start", () => {
    for (const { answer, secret } of [viaApi, viaAccount]) {
      expect(secret).toMatch(secretPattern);
      expect(answer.body.start).toBe(secret.slice(0, "ck_live_".length + startRandomChars));
      expect(answer.body).not.toHaveProperty("hash");
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
    expect(viaApi.secret).not.toBe(viaAccount.secret);
  });

  it("the secrets worked, and failed where they should", () => {
    const outcome = Object.fromEntries(Object.entries(uses).map(([name, a]) => [name, a.status === 200 ? 200 : `${a.status} ${a.body?.code}`]));
    expect(outcome).toEqual({
      health: 200,
      listCases: 200,
      createCaseWithoutScope: "403 missing_scope",
      listKeysWithoutScope: "403 missing_scope",
      createCase: 200,
      readRedCaseAboveClearance: "403 tlp_restricted",
      readRedCase: 200,
      secretInQuery: "401 credentials_in_query",
      secretInQueryBesideHeader: "401 credentials_in_query",
      typo: "401 invalid_key",
      suspend: 200,
      whileSuspended: "401 key_suspended",
      resume: 200,
      afterResume: 200,
    });
  });

  it("no later response shows a secret: not in a body, not in a header", () => {
    expect(exchanges.length).toBeGreaterThan(25);
    const leaks = exchanges
      .map(({ method, path, answer }) => {
        const headers = [...answer.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
        // A create response may show its own secret, never the other one.
        const own = answer === viaApi.answer ? viaApi.secret : answer === viaAccount.answer ? viaAccount.secret : undefined;
        const forbidden = own === undefined ? needles : needles.filter((n) => !own.includes(n.value));
        return { request: `${method} ${path.split("?")[0]}`, found: [...found(answer.text, forbidden), ...found(headers, needles)] };
      })
      .filter((leak) => leak.found.length > 0);
    expect(leaks).toEqual([]);
  });

  it("GET /api-keys and GET /api-keys/{id} (API and account area) show the start, never the secret or its hash", () => {
    const shows = exchanges.filter(({ method, path }) => method === "GET" && /\/api-keys(\/|$)/.test(path) && !path.includes("?"));
    expect(shows.map(({ path }) => path.replace(/key_\w+/, "{id}"))).toEqual(
      expect.arrayContaining([`${api}/api-keys/{id}`, "/account/api-keys/{id}", `${api}/api-keys`, "/account/api-keys"]),
    );
    for (const { path, answer } of shows) {
      if (answer.status !== 200) continue; // the scope refusal above has no key to show
      const keys = Array.isArray(answer.body.data) ? answer.body.data : [answer.body];
      expect(keys.length, path).toBeGreaterThan(0);
      for (const key of keys) {
        expect(Object.keys(key), path).not.toContain("key");
        expect(Object.keys(key), path).not.toContain("hash");
        expect(key.start, path).toMatch(new RegExp(`^ck_live_[0-9A-Za-z]{${startRandomChars}}$`));
      }
      expect(found(answer.text, needles), path).toEqual([]);
    }
  });

  it("no access-log line holds a secret, and the query string is never logged", () => {
    expect(logs.length).toBe(exchanges.length);
    expect(logs.map((line) => found(JSON.stringify(line), needles)).flat()).toEqual([]);
    for (const line of logs) expect(line.path).not.toContain("?");
    const refused = logs.filter((line) => line.code === "credentials_in_query");
    expect(refused.map((line) => line.path)).toEqual([`${api}/health`, `${api}/cases`]);
  });

  it("nothing was written to the console", () => {
    const written = consoleSpies.flatMap((spy) => spy.mock.calls.map((args) => args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")));
    expect(written.map((text) => found(text, needles)).flat()).toEqual([]);
  });

  it("no row of any table holds a secret", () => {
    const dump = dumpTables();
    // The dump is not vacuous: the tables that see keys exist and hold rows.
    for (const table of ["api_keys", "audit_log", "events", "tlp_audit_log", "sessions", "users", "cases"]) {
      expect(dump.get(table)?.length ?? 0, table).toBeGreaterThan(0);
    }
    const leaks = [...dump].flatMap(([table, rows]) => rows.flatMap((row, i) => found(row, needles).map((label) => `${table} row ${i}: ${label}`)));
    expect(leaks).toEqual([]);
  });

  it("audit entries and TLP audit entries name the keys by id only", async () => {
    const audit = await storage.read((tx) => tx.audit.list(viaApi.answer.body.organizationId, { limit: 500 }));
    const created = audit.filter((e) => e.action === "key.created").map((e) => e.target.id);
    expect(created).toEqual(expect.arrayContaining([viaApi.id, viaAccount.id]));
    expect(found(JSON.stringify(audit), needles)).toEqual([]);

    const admin = await kit.authenticateKey(adminKey);
    const tlp = await kit.tlp.auditLogs(admin, { limit: 500 });
    // The RED case's create, allowed view, and the refused view by the low-clearance key.
    expect(tlp.data.map((e) => e.actorKeyId)).toEqual(expect.arrayContaining([viaApi.id, viaAccount.id]));
    expect(tlp.data.some((e) => e.outcome === "denied" && e.actorKeyId === viaApi.id)).toBe(true);
    expect(found(JSON.stringify(tlp.data), needles)).toEqual([]);
  });

  it("stores an HMAC-SHA256 of the secret under the deployment's key-hash secret, not a plain SHA-256", () => {
    const rows = db.prepare("SELECT id, hash, start FROM api_keys WHERE id IN (?, ?)").all(viaApi.id, viaAccount.id) as { id: string; hash: string; start: string }[];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const secret = row.id === viaApi.id ? viaApi.secret : viaAccount.secret;
      expect(row.hash).toBe(createHmac("sha256", keyHashSecret).update(secret).digest("hex"));
      expect(row.hash).not.toBe(createHash("sha256").update(secret).digest("hex"));
      expect(row.hash).not.toBe(createHmac("sha256", "").update(secret).digest("hex"));
      expect(secret.startsWith(row.start)).toBe(true);
    }
  });

  it("the raw bytes of the database file and its WAL hold no secret, before and after a checkpoint", () => {
    const wal = `${file}-wal`;
    expect(existsSync(wal)).toBe(true);
    const before = { db: readFileSync(file), wal: readFileSync(wal) };
    expect(before.wal.length).toBeGreaterThan(0);
    // The check can see: the stored hashes are in the bytes.
    const hash = createHmac("sha256", keyHashSecret).update(viaApi.secret).digest("hex");
    expect(Buffer.concat([before.db, before.wal]).includes(Buffer.from(hash))).toBe(true);
    expect({ db: foundInBytes(before.db, needles), wal: foundInBytes(before.wal, needles) }).toEqual({ db: [], wal: [] });

    db.pragma("wal_checkpoint(TRUNCATE)");
    const after = readFileSync(file);
    expect(after.includes(Buffer.from(hash))).toBe(true);
    expect(foundInBytes(after, needles)).toEqual([]);
  });

  it("the session token and the password are kept nowhere either (only their hashes)", () => {
    const others: Needle[] = [
      { label: "session token", value: sessionToken },
      { label: "admin password", value: adminPassword },
    ];
    const rows = [...dumpTables()].flatMap(([table, r]) => r.map((row) => `${table}: ${row}`)).join("\n");
    expect(found(rows, others)).toEqual([]);
    expect(foundInBytes(Buffer.concat([readFileSync(file), existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0)]), others)).toEqual([]);
    expect(found(JSON.stringify(logs), others)).toEqual([]);
  });
});

