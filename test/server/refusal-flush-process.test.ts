// The real `casekit serve` drives the refusal log (core/audit/refusals.ts starts no timers): what a
// window still counts when SIGTERM arrives is written to the audit log before the storage closes.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { refusalWindowMs } from "../../core/index.js";
import { startServeProcess } from "../helpers/serve-process.js";

describe("casekit serve and the refusal log", () => {
  it("writes the counted repeats of a window at shutdown", async () => {
    const serve = await startServeProcess();
    try {
      const key = (await (await serve.request("/api/v1/api-keys", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "soon revoked", scopes: ["cases:read"] }) })).json()) as {
        id: string;
        key: string;
      };
      expect((await serve.request(`/api/v1/api-keys/${key.id}/revoke`, { method: "POST" })).status).toBe(200);
      // All three in one window (60 s, on the minute): not within two seconds of its end.
      const intoWindow = Date.now() % refusalWindowMs;
      if (intoWindow > refusalWindowMs - 2_000) await new Promise((resolve) => setTimeout(resolve, refusalWindowMs - intoWindow + 50));
      for (let i = 0; i < 3; i++) expect((await serve.request("/api/v1/cases", { headers: { authorization: `Bearer ${key.key}` } })).status).toBe(401);

      serve.child.kill("SIGTERM");
      while (serve.alive()) await new Promise((resolve) => setTimeout(resolve, 20));
      const db = new Database(serve.database, { readonly: true });
      try {
        const rows = db.prepare("SELECT outcome, changes FROM audit_log WHERE action = 'key.authentication_failed' ORDER BY seq").all() as { outcome: string; changes: string }[];
        const counts = rows.map((row) => (JSON.parse(row.changes) as { path: string; after: unknown }[]).find((change) => change.path === "count")?.after);
        // The first at once, the two after it as one event written on the way out.
        expect(counts).toEqual([1, 2]);
        expect(rows.every((row) => row.outcome === "denied")).toBe(true);
      } finally {
        db.close();
      }
    } finally {
      await serve.stop();
    }
  });
});
