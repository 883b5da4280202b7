import http from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { connect } from "../helpers/sse-client.js";
import type { Received } from "../helpers/sse-client.js";
import { until } from "../helpers/syslog-receiver.js";
import { actingAs, expectProblem, listening } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;

interface Line {
  seq: number;
  action: string;
  organizationId: string;
  at: string;
  target: { id: string };
  changes: { path: string; before: unknown; after: unknown }[];
}

/** The export's raw bytes and headers over a real socket (so gzip arrives as sent). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

const lines = (text: string): Line[] => text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Line);

describe("audit events export and stream over HTTP", () => {
  let w: World;
  let client: Transport & { port: number };
  let caseId: string;
  let auditor: string;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const url = (path: string) => `http://127.0.0.1:${client.port}${api}${path}`;

  beforeAll(async () => {
    w = await makeWorld();
    client = await listening(w.app);
    const admin = actingAs(client, w.adminKey);
    caseId = (await admin.post(`${api}/cases`, { ...validCase, tlp: 2 })).body.id as string;
    await admin.post(`${api}/cases/${caseId}/tasks`, { title: "Collect headers" });
    await admin.patch(`${api}/cases/${caseId}`, { title: "Renamed" });
    await admin.post(`${api}/cases`, { ...validCase, title: "Another" });
    await actingAs(client, w.other.adminKey).post(`${api}/cases`, { ...validCase, title: "Theirs" });
    auditor = (await userWithKey(w, { role: "admin", scopes: ["audit:read"], tlpClearance: 1 })).secret;
  });
  afterAll(async () => {
    await client.close();
  });

  describe("GET /audit-events/export", () => {
    it("answers every event of the organization as NDJSON, oldest first, the same events the list answers", async () => {
      const admin = actingAs(client, w.adminKey);
      const answer = await admin.get(`${api}/audit-events/export`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/x-ndjson");
      expect(answer.text.endsWith("\n")).toBe(true);
      const exported = lines(answer.text);
      const listed = (await admin.get(`${api}/audit-events?limit=500`)).body.data as Line[];
      expect(exported.map((e) => e.seq)).toEqual(listed.map((e) => e.seq).reverse());
      expect(exported).toEqual([...listed].reverse());
      expect(new Set(exported.map((e) => e.organizationId))).toEqual(new Set([w.organizationId]));
      expect(answer.text).not.toContain("Theirs");
    });

    it("gzip when accepted: the body inflates to the same lines", async () => {
      const plain = await rawGet(client.port, `${api}/audit-events/export`, auth(w.adminKey));
      const zipped = await rawGet(client.port, `${api}/audit-events/export`, { ...auth(w.adminKey), "accept-encoding": "gzip" });
      expect(zipped.status).toBe(200);
      expect(zipped.headers["content-encoding"]).toBe("gzip");
      expect(zipped.headers.vary).toBe("accept-encoding");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(gunzipSync(zipped.body).toString("utf8")).toBe(plain.body.toString("utf8"));
    });

    it("keeps the list's filters and a time range (from inclusive, to exclusive); a bad filter is 400 before anything is sent", async () => {
      const admin = actingAs(client, w.adminKey);
      const actions = async (query: string) => lines((await admin.get(`${api}/audit-events/export?${query}`)).text).map((e) => e.action);
      expect(await actions(`caseId=${caseId}`)).toEqual(["case.created", "task.created", "case.updated"]);
      expect(await actions("action=case.updated")).toEqual(["case.updated"]);
      const all = lines((await admin.get(`${api}/audit-events/export`)).text);
      const at = all.find((e) => e.action === "case.updated")!.at;
      expect(lines((await admin.get(`${api}/audit-events/export?from=${at}&action=case.updated`)).text)).toHaveLength(1);
      expect(lines((await admin.get(`${api}/audit-events/export?to=${at}&action=case.updated`)).text)).toHaveLength(0);
      expect((await admin.get(`${api}/audit-events/export?outcome=denied`)).text).toBe("");
      expectProblem(await admin.get(`${api}/audit-events/export?outcome=maybe`), 400, "validation_failed");
      expectProblem(await admin.get(`${api}/audit-events/export?limit=5`), 400, "validation_failed");
    });

    it("redacts values above a low-clearance reader's clearance; needs audit:read", async () => {
      const low = lines((await actingAs(client, auditor).get(`${api}/audit-events/export?action=case.updated`)).text);
      expect(low[0]!.changes).toEqual([{ path: "title", before: "[redacted]", after: "[redacted]" }]);
      expectProblem(await actingAs(client, w.keys.readOnly).get(`${api}/audit-events/export`), 403, "missing_scope");
      expectProblem(await actingAs(client, w.keys.revoked).get(`${api}/audit-events/export`), 401, "key_revoked");
    });

    it("reads page by page: an export longer than one page has every event once, in order", async () => {
      const t = await makeWorld();
      const many = await listening(t.app);
      try {
        const admin = actingAs(many, t.adminKey);
        for (let i = 0; i < 1300; i++) await t.kit.cases.create(t.admin, { ...validCase, title: `Case ${i}` });
        const exported = lines((await admin.get(`${api}/audit-events/export`)).text);
        expect(exported.length).toBeGreaterThanOrEqual(1300);
        expect(exported.map((e) => e.seq)).toEqual(exported.map((_, i) => exported[0]!.seq + i));
      } finally {
        await many.close();
      }
    }, 60_000);
  });

  describe("GET /audit-events/stream", () => {
    const seqs = (received: Received) => received.events.map((e) => Number(e.id));
    const newCase = (title: string) => actingAs(client, w.adminKey).post(`${api}/cases`, { ...validCase, title });

    it("starts from now by default, then follows new events; id is the seq; another organization's events never arrive", async () => {
      const head = (await actingAs(client, w.adminKey).get(`${api}/audit-events?limit=1`)).body.data[0].seq as number;
      const stream = await connect(url("/audit-events/stream"), auth(w.adminKey));
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
        await until(() => stream.raw.startsWith("retry:"), "the retry field");
        await newCase("Live one");
        await actingAs(client, w.other.adminKey).post(`${api}/cases`, { ...validCase, title: "Theirs, live" });
        await until(() => stream.events.length >= 1, "the live event");
        expect(seqs(stream)).toEqual([head + 1]);
        const data = JSON.parse(stream.events[0]!.data) as Line;
        expect(data).toMatchObject({ seq: head + 1, action: "case.created", organizationId: w.organizationId });
        expect(stream.raw).not.toContain("Theirs");
      } finally {
        stream.close();
      }
    });

    it("resumes after a reconnect with Last-Event-ID without loss or duplicate; lastEventId=0 starts from the first event", async () => {
      const first = await connect(url("/audit-events/stream?lastEventId=0"), auth(w.adminKey));
      const total = (await actingAs(client, w.adminKey).get(`${api}/audit-events?limit=1`)).body.data[0].seq as number;
      await until(() => first.events.length >= total, "every event so far");
      expect(seqs(first)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      await newCase("Before the drop");
      await until(() => first.events.length >= total + 1, "one live event");
      first.close();
      await newCase("While away 1");
      await newCase("While away 2");
      const second = await connect(url("/audit-events/stream?lastEventId=0"), { ...auth(w.adminKey), "last-event-id": first.events.at(-1)!.id });
      try {
        await newCase("After the reconnect");
        await until(() => second.events.length >= 3, "the 3 events after the reconnect");
        const all = [...seqs(first), ...seqs(second)];
        expect(all).toEqual(Array.from({ length: total + 4 }, (_, i) => i + 1));
      } finally {
        second.close();
      }
    });

    it("redacts for the reader's clearance; a bad lastEventId is 400; audit:read is needed", async () => {
      const stream = await connect(url(`/audit-events/stream?lastEventId=0`), auth(auditor));
      try {
        await until(() => stream.events.some((e) => (JSON.parse(e.data) as Line).action === "case.updated"), "the case update");
        const updated = stream.events.map((e) => JSON.parse(e.data) as Line).find((e) => e.action === "case.updated")!;
        expect(updated.changes).toEqual([{ path: "title", before: "[redacted]", after: "[redacted]" }]);
      } finally {
        stream.close();
      }
      expectProblem(await actingAs(client, w.adminKey).get(`${api}/audit-events/stream?lastEventId=x`), 400, "validation_failed");
      expectProblem(await actingAs(client, w.keys.readOnly).get(`${api}/audit-events/stream`), 403, "missing_scope");
    });

    for (const [action, done] of [["revoke", "revoked"], ["suspend", "suspended"]] as const) {
      it(`a key ${done} while streaming stops receiving: the stream ends, and the reconnect is 401`, async () => {
        const { secret, key } = await userWithKey(w, { role: "admin", scopes: ["audit:read"] });
        const stream = await connect(url("/audit-events/stream"), auth(secret));
        await until(() => stream.raw.startsWith("retry:"), "the retry field");
        await newCase(`Seen before the ${action}`);
        await until(() => stream.events.length >= 1, "the event before");
        expect((await actingAs(client, w.adminKey).post(`${api}/api-keys/${key.id}/${action}`)).status).toBe(200);
        await newCase(`Not seen after the ${action}`);
        await until(() => stream.closed, "the stream's end");
        expect(stream.ended, "cut, not ended like a whole stream").toBe(false);
        expect(stream.raw).not.toContain(`Not seen after the ${action}`);
        const again = await actingAs(client, secret).get(`${api}/audit-events/stream`);
        expectProblem(again, 401, action === "revoke" ? "key_revoked" : "key_suspended");
      });
    }
  });
});
