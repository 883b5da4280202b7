// Items 3, 4 and 10 of issue 12 against the real `casekit serve` process (needs `npm run build`),
// with its own webhook dispatcher delivering to a loopback receiver the deployment allows
// (CASEKIT_WEBHOOK_ALLOWLIST): the attack report's steps, now answered as the rules say.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allScopes } from "../../core/index.js";
import { startReceiver } from "../helpers/receiver.js";
import type { Receiver } from "../helpers/receiver.js";
import { startServeProcess } from "../helpers/serve-process.js";
import type { ServeProcess } from "../helpers/serve-process.js";

interface Reply {
  status: number;
  type: string | null;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
}

interface Delivered {
  path: string;
  type: string;
  data: { id: string; title?: string; redacted?: boolean; tlp?: number; resourceType?: string };
}

const bin = fileURLToPath(new URL("../../bin/casekit.mjs", import.meta.url));

describe("casekit serve: TLP everywhere, one rule (webhooks, inherited markings, no existence oracles)", () => {
  let p: ServeProcess;
  let receiver: Receiver;
  let low: { id: string; key: string };

  async function call(path: string, options: { method?: string; body?: unknown; key?: string } = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    const response = await p.request(`/api/v1${path}`, { method: options.method ?? "GET", headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type"), body: text ? JSON.parse(text) : undefined };
  }

  const delivered = (): Delivered[] => receiver.received.map((r) => ({ path: r.path, ...(JSON.parse(r.body) as Omit<Delivered, "path">) }));

  /** Waits until the dispatcher in the process has delivered `id` to `path`. */
  async function deliveryOf(path: string, id: string): Promise<Delivered> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = delivered().find((d) => d.path === path && d.data.id === id);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no delivery of ${id} to ${path}; got ${JSON.stringify(delivered().map((d) => [d.path, d.type, d.data.id]))}\n${p.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    p = await startServeProcess({ env: { CASEKIT_WEBHOOK_ALLOWLIST: "127.0.0.1" } });
    // Every scope its owner (the admin) holds, only the clearance lower: refusals below are for TLP.
    const minted = await call("/api-keys", { method: "POST", body: { name: "tier 1 integration", tlpClearance: 1, scopes: [...allScopes] } });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    low = { id: minted.body.id, key: minted.body.key };
  }, 60_000);

  afterAll(async () => {
    await p?.stop();
    await receiver?.close();
  });

  it("item 3: a clearance-1 key's subscription gets RED records redacted (its RED-cleared owner's would not), cannot re-point an admin's subscription, and stops for good when the key is revoked", async () => {
    const mine = await call("/webhooks", { method: "POST", key: low.key, body: { name: "tier 1", url: receiver.url("/low"), events: ["case.*", "task.*", "observable.*"] } });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const admins = await call("/webhooks", { method: "POST", body: { name: "admin", url: receiver.url("/admin"), events: ["case.*"] } });
    expect(admins.status).toBe(200);

    // The same key re-pointing the admin's subscription to its own URL: refused, nothing changed.
    for (const patch of [{ url: receiver.url("/stolen") }, { events: ["*"] }, { filters: {} }]) {
      const refused = await call(`/webhooks/${admins.body.id}`, { method: "PATCH", key: low.key, body: patch });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: "tlp_restricted" });
      expect(refused.type).toBe("application/problem+json");
    }
    expect((await call(`/webhooks/${admins.body.id}/rotate-secret`, { method: "POST", key: low.key })).status).toBe(403);
    expect((await call(`/webhooks/${admins.body.id}`)).body.url).toBe(receiver.url("/admin"));

    const green = await call("/cases", { method: "POST", body: { title: "GREEN case", severity: 2, tlp: 1 } });
    const red = await call("/cases", { method: "POST", body: { title: "RED case, secret title", severity: 4, tlp: 4 } });
    expect((await deliveryOf("/low", green.body.id)).data).toMatchObject({ title: "GREEN case" });
    expect((await deliveryOf("/low", red.body.id)).data).toEqual({ id: red.body.id, resourceType: "case", tlp: 4, redacted: true });
    expect((await deliveryOf("/admin", red.body.id)).data).toMatchObject({ title: "RED case, secret title" });
    expect(receiver.received.filter((r) => r.path === "/low").map((r) => r.body).join("")).not.toContain("secret title");
    expect(receiver.received.some((r) => r.path === "/stolen")).toBe(false);

    // Item 4 on the same subscription, while its key lives: children of the RED case inherit RED.
    const task = await call(`/cases/${red.body.id}/tasks`, { method: "POST", body: { title: "CLEAR task, secret", tlp: 0 } });
    const observable = await call(`/cases/${red.body.id}/observables`, { method: "POST", body: { dataType: "domain", data: "clear-child.example", tlp: 0 } });
    expect(task.status).toBe(200);
    expect(observable.status).toBe(200);
    expect((await deliveryOf("/low", task.body.id)).data).toEqual({ id: task.body.id, resourceType: "task", tlp: 4, redacted: true });
    expect((await deliveryOf("/low", observable.body.id)).data).toEqual({ id: observable.body.id, resourceType: "observable", tlp: 4, redacted: true });

    // Revoking the key ends its subscription: disabled, saying why, and nothing more is sent.
    expect((await call(`/api-keys/${low.id}/revoke`, { method: "POST" })).status).toBe(200);
    const after = await call("/cases", { method: "POST", body: { title: "after the revocation", severity: 1, tlp: 0 } });
    await deliveryOf("/admin", after.body.id);
    const deadline = Date.now() + 15_000;
    while ((await call(`/webhooks/${mine.body.id}`)).body.status !== "disabled" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await call(`/webhooks/${mine.body.id}`)).body).toMatchObject({ status: "disabled", disabledReason: expect.stringMatching(/revoked/) });
    expect(delivered().some((d) => d.path === "/low" && d.data.id === after.body.id)).toBe(false);
    expect((await call(`/webhooks/${mine.body.id}`, { method: "PATCH", body: { status: "active" } })).body.code).toBe("conflict");
  }, 60_000);

  describe("with a live clearance-1 key", () => {
    let key: string;
    beforeAll(async () => {
      const minted = await call("/api-keys", {
        method: "POST",
        body: { name: "tier 1 again", tlpClearance: 1, scopes: ["cases:read", "cases:write", "alerts:read", "alerts:write", "tasks:read", "observables:read", "observables:write", "audit:read"] },
      });
      key = minted.body.key;
    });

    it("item 4: a TLP:CLEAR task and observable of a RED case are 403 by id and left out of every list", async () => {
      const red = await call("/cases", { method: "POST", body: { title: "RED", severity: 4, tlp: 4 } });
      const task = await call(`/cases/${red.body.id}/tasks`, { method: "POST", body: { title: "CLEAR", tlp: 0 } });
      const observable = await call(`/cases/${red.body.id}/observables`, { method: "POST", body: { dataType: "domain", data: "inherited.example", tlp: 0 } });
      const comment = await call(`/tasks/${task.body.id}/comments`, { method: "POST", body: { body: "on a CLEAR task of a RED case" } });
      for (const path of [`/tasks/${task.body.id}`, `/observables/${observable.body.id}`, `/comments/${comment.body.id}`, `/tasks/${task.body.id}/comments`]) {
        const refused = await call(path, { key });
        expect({ path, status: refused.status, code: refused.body.code }).toEqual({ path, status: 403, code: "tlp_restricted" });
      }
      expect((await call("/tasks?limit=500", { key })).body.data.map((t: { id: string }) => t.id)).not.toContain(task.body.id);
      expect((await call("/observables?data=inherited.example", { key })).body.data).toEqual([]);
      expect((await call("/observables?data=inherited.example")).body.data.map((o: { id: string }) => o.id)).toEqual([observable.body.id]);
    });

    it("item 10: ingestion and observables answer a hidden reference or value as a new one; the TLP audit log shows nothing above the reader", async () => {
      const red = await call("/alerts", { method: "POST", body: { title: "RED alert", source: "edr", sourceRef: "evt-red", severity: 4, tlp: 4 } });
      const hidden = await call("/alerts", { method: "POST", key, body: { title: "tier 1", source: "edr", sourceRef: "evt-red", severity: 2, tlp: 1 } });
      const unknown = await call("/alerts", { method: "POST", key, body: { title: "tier 1", source: "edr", sourceRef: "evt-new", severity: 2, tlp: 1 } });
      expect([hidden.status, unknown.status]).toEqual([200, 200]);
      expect(hidden.body).toMatchObject({ deduplicated: false, occurrences: 1, tlp: 1 });
      expect(hidden.body.id).not.toBe(red.body.id);
      expect(Object.keys(hidden.body).sort()).toEqual(Object.keys(unknown.body).sort());

      const green = await call("/cases", { method: "POST", body: { title: "GREEN", severity: 2, tlp: 1 } });
      await call(`/cases/${green.body.id}/observables`, { method: "POST", body: { dataType: "domain", data: "held-at-red.example", tlp: 4 } });
      const added = await call(`/cases/${green.body.id}/observables`, { method: "POST", key, body: { dataType: "domain", data: "held-at-red.example" } });
      expect(added.status).toBe(200);
      expect(added.body).toMatchObject({ deduplicated: false, tlp: 1 });

      await call(`/alerts/${red.body.id}`);
      const log = await call("/tlp/audit-logs?limit=500", { key });
      expect(log.status).toBe(200);
      expect(JSON.stringify(log.body)).not.toContain(red.body.id);
      for (const entry of log.body.data) expect(Math.max(entry.tlpBefore ?? 0, entry.tlpAfter ?? 0)).toBeLessThanOrEqual(1);
      expect((await call("/tlp/audit-logs/verify", { key })).body).toMatchObject({ ok: true });
    });

    it("item 10: sharing a case with a real organization that accepts none answers as for an unknown organization id", async () => {
      const init = spawnSync(process.execPath, [bin, "init", "--org", "Other SOC", "--email", "admin@other.test", "--database", p.database, "--json"], { encoding: "utf8" });
      expect(init.status, init.stderr).toBe(0);
      const other = (JSON.parse(init.stdout.trim().split("\n").at(-1)!) as { organizationId: string }).organizationId;
      expect((await call("/organization/policy", { method: "PATCH", body: { allowCaseSharing: true } })).status).toBe(200);
      const real = await call("/cases", { method: "POST", body: { title: "share?", severity: 2, organizations: [other] } });
      const unknown = await call("/cases", { method: "POST", body: { title: "share?", severity: 2, organizations: ["org_01kaaaaaaaaaaaaaaaaaaaaaaa"] } });
      expect(real.status).not.toBe(403);
      expect({ status: real.status, body: real.body }).toEqual({ status: unknown.status, body: unknown.body });
    });
  });
});
