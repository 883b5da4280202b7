import { beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import type { CaseKit, ErrorCode, Principal } from "../../core/index.js";
import type { OutboundRequest, OutboundResponse, OutboundTransport } from "../../core/ports/outbound.js";
import { createCaseKit, createSealer, ManualClock, secretRotationGraceMs, verifySignature } from "../../core/index.js";
import { createDispatcher } from "../../core/webhooks/dispatcher.js";
import { isWebhookSecret } from "../../core/webhooks/signature.js";
import { addOrganization, keyHashSecret, principalFor } from "../helpers/kit.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

async function failure(promise: Promise<unknown>): Promise<{ code: ErrorCode; paths: string[]; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string }[]; message: string };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path), message: e.message };
  }
  throw new Error("expected a failure");
}

async function makeKit(webhookAllowlist?: string) {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret, webhookAllowlist } });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  return { kit, clock, admin, organizationId: init.organization.id };
}

/** A receiver stand-in: records every request, answers with the status it is told. */
function recordingTransport(status: () => number = () => 200): OutboundTransport & { sent: OutboundRequest[] } {
  const sent: OutboundRequest[] = [];
  return {
    sent,
    async send(request): Promise<OutboundResponse> {
      sent.push(request);
      return { status: status(), retryAfter: null, body: "ok", durationMs: 3 };
    },
  };
}

const hook = { name: "SIEM", url: "https://hooks.example.com/casekit", events: ["case.*"] };
const unseal = createSealer(keyHashSecret).unseal;

/** Everything the organization's audit trail and outbox hold, as text. */
async function trailText(kit: CaseKit, organizationId: string): Promise<string> {
  const [audit, events] = await kit.storage.read(async (tx) => [await tx.audit.list(organizationId, { limit: 500 }), await tx.events.list(organizationId, { limit: 500 })]);
  return JSON.stringify({ audit, events });
}

describe("webhook subscriptions", () => {
  let kit: CaseKit;
  let clock: ManualClock;
  let admin: Principal;
  let organizationId: string;
  beforeEach(async () => {
    ({ kit, clock, admin, organizationId } = await makeKit());
  });

  describe("create", () => {
    it("fills the documented defaults, owns the subscription by the caller, and shows the secret this once", async () => {
      const created = await kit.webhooks.create(admin, hook);
      expect(created).toMatchObject({
        id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
        organizationId,
        name: "SIEM",
        url: hook.url,
        events: ["case.*"],
        description: null,
        method: "POST",
        authType: "none",
        authConfig: {},
        headers: {},
        filters: {},
        retryDelayMs: 1000,
        timeoutMs: 30_000,
        maxRetries: 3,
        tags: [],
        environment: "production",
        status: "active",
        disabledReason: null,
        createdBy: admin.userId,
        createdAt: "2026-03-01T12:00:00.000Z",
      });
      expect(isWebhookSecret(created.secret)).toBe(true);
      expect(created.secretStart).toBe(created.secret.slice(0, 10));
      const read = await kit.webhooks.get(admin, created.id);
      expect(read).not.toHaveProperty("secret");
      expect(JSON.stringify(read)).not.toContain(created.secret);
      const listed = await kit.webhooks.list(admin, {});
      expect(listed).toEqual({ data: [read], nextCursor: null });
    });

    it("stores the secret and authConfig values sealed, and answers with authConfig masked", async () => {
      const created = await kit.webhooks.create(admin, { ...hook, authType: "basic", authConfig: { username: "siem", password: "hunter2-very-secret" } });
      expect(created.authConfig).toEqual({ username: "********", password: "********" });
      const stored = (await kit.storage.read((tx) => tx.webhooks.findById(organizationId, created.id)))!;
      expect(stored.secret).not.toContain("whsec_");
      expect(unseal(stored.secret)).toBe(created.secret);
      expect(stored.authConfig.password).not.toContain("hunter2");
      expect(unseal(stored.authConfig.password!)).toBe("hunter2-very-secret");
      expect(unseal(stored.authConfig.username!)).toBe("siem");
    });

    it("refuses hostile URLs with 400 on url and the reason, writing nothing", async () => {
      const hostile = [
        "http://127.0.0.1/hook",
        "http://0x7f.1/hook",
        "http://2130706433/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:8080/",
        "http://[::ffff:10.0.0.1]/",
        "http://100.64.0.1/",
        "http://192.168.1.10/",
        "http://localhost:3000/",
        "file:///etc/passwd",
        "ftp://hooks.example.com/",
        "https://user:pass@hooks.example.com/",
        "not a url",
      ];
      for (const url of hostile) {
        const refused = await failure(kit.webhooks.create(admin, { ...hook, url }));
        expect({ url, code: refused.code, paths: refused.paths }).toEqual({ url, code: "validation_failed", paths: ["url"] });
        expect(refused.message).toMatch(/^url: /);
      }
      expect((await kit.webhooks.list(admin, {})).data).toEqual([]);
      expect(await trailText(kit, organizationId)).not.toContain("webhook.created");
    });

    it("allows exactly what the deployment's allowlist names (host and port)", async () => {
      const allowed = await makeKit("127.0.0.1:8787,hooks.internal");
      expect((await allowed.kit.webhooks.create(allowed.admin, { ...hook, url: "http://127.0.0.1:8787/hook" })).url).toBe("http://127.0.0.1:8787/hook");
      expect((await allowed.kit.webhooks.create(allowed.admin, { ...hook, url: "https://hooks.internal/x" })).url).toBe("https://hooks.internal/x");
      expect((await failure(allowed.kit.webhooks.create(allowed.admin, { ...hook, url: "http://127.0.0.1:8788/hook" }))).paths).toEqual(["url"]);
      expect(() => createCaseKit({ passwordHasher: fastPasswordHasher, storage: allowed.kit.storage, config: { keyHashSecret, webhookAllowlist: "not a host!" } })).toThrow(/CASEKIT_WEBHOOK_ALLOWLIST/);
    });

    it("rejects bad bodies: unknown fields, reserved headers, authConfig that does not fit authType, bounds", async () => {
      const cases: [unknown, string][] = [
        [{ ...hook, secret: "whsec_mine" }, "secret"],
        [{ ...hook, organizationId: "org_x" }, "organizationId"],
        [{ ...hook, headers: { Host: "evil" } }, "headers.Host"], // the refused member itself
        [{ ...hook, headers: { "X-A": "a\r\nInjected: 1" } }, "headers.X-A"],
        [{ ...hook, authType: "bearer" }, "authConfig"],
        [{ ...hook, timeoutMs: 60_000 }, "timeoutMs"],
        [{ ...hook, maxRetries: 11 }, "maxRetries"],
        [{ ...hook, events: [] }, "events"],
        [{ ...hook, method: "GET" }, "method"],
      ];
      // Every header the transport sets itself or cannot send as given (undici refuses these).
      for (const name of ["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade", "TE", "Trailer", "Expect", "Proxy-Authorization", "webhook-id"]) {
        cases.push([{ ...hook, headers: { [name]: "1" } }, `headers.${name}`]);
      }
      for (const [body, path] of cases) {
        const refused = await failure(kit.webhooks.create(admin, body));
        expect(refused.code).toBe("validation_failed");
        expect(refused.paths).toContain(path);
      }
      expect((await kit.webhooks.list(admin, {})).data).toEqual([]);
    });

    it("needs webhooks:write to change and webhooks:read to look", async () => {
      const created = await kit.webhooks.create(admin, hook);
      const reader = principalFor(admin, { scopes: new Set(["webhooks:read"]) });
      const nobody = principalFor(admin, { scopes: new Set(["cases:read", "cases:write"]) });
      expect((await failure(kit.webhooks.create(reader, hook))).code).toBe("missing_scope");
      expect((await failure(kit.webhooks.update(reader, created.id, { name: "x" }))).code).toBe("missing_scope");
      expect((await failure(kit.webhooks.rotateSecret(reader, created.id))).code).toBe("missing_scope");
      expect((await failure(kit.webhooks.test(reader, created.id))).code).toBe("missing_scope");
      expect((await failure(kit.webhooks.delete(reader, created.id))).code).toBe("missing_scope");
      expect((await kit.webhooks.get(reader, created.id)).id).toBe(created.id);
      expect((await kit.webhooks.listDeliveries(reader, created.id, {})).data).toEqual([]);
      expect((await failure(kit.webhooks.get(nobody, created.id))).code).toBe("missing_scope");
      expect((await failure(kit.webhooks.list(nobody, {}))).code).toBe("missing_scope");
    });

    it("keeps organizations apart: another organization's id is not_found for every operation", async () => {
      const created = await kit.webhooks.create(admin, hook);
      const other = await addOrganization(kit, "Other SOC");
      for (const attempt of [
        kit.webhooks.get(other.admin, created.id),
        kit.webhooks.update(other.admin, created.id, { name: "taken over" }),
        kit.webhooks.delete(other.admin, created.id),
        kit.webhooks.rotateSecret(other.admin, created.id),
        kit.webhooks.test(other.admin, created.id),
        kit.webhooks.listDeliveries(other.admin, created.id, {}),
      ]) {
        expect((await failure(attempt)).code).toBe("not_found");
      }
      expect((await kit.webhooks.list(other.admin, {})).data).toEqual([]);
      expect(await kit.webhooks.get(admin, created.id)).toEqual((({ secret: _s, ...rest }) => rest)(created));
    });

    it("lists newest first in keyset pages; unknown query parameters are 400", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await kit.webhooks.create(admin, { ...hook, name: `hook ${i}` })).id);
      const first = await kit.webhooks.list(admin, { limit: "2" });
      expect(first.data.map((w) => w.id)).toEqual([ids[4], ids[3]]);
      const second = await kit.webhooks.list(admin, { limit: "2", cursor: first.nextCursor! });
      expect(second.data.map((w) => w.id)).toEqual([ids[2], ids[1]]);
      expect((await failure(kit.webhooks.list(admin, { status: "active" }))).paths).toEqual(["status"]);
      expect((await failure(kit.webhooks.list(admin, { limit: "501" }))).paths).toEqual(["limit"]);
    });
  });

  describe("update and delete", () => {
    it("re-checks a new url, and changes nothing when refused", async () => {
      const created = await kit.webhooks.create(admin, hook);
      const refused = await failure(kit.webhooks.update(admin, created.id, { url: "http://10.0.0.5/hook", name: "renamed" }));
      expect(refused).toMatchObject({ code: "validation_failed", paths: ["url"] });
      expect((await kit.webhooks.get(admin, created.id)).name).toBe("SIEM");
      const moved = await kit.webhooks.update(admin, created.id, { url: "https://new.example.com/hook" });
      expect(moved.url).toBe("https://new.example.com/hook");
    });

    it("replaces authConfig only when given; authType none drops it; authConfig alone must fit the stored authType", async () => {
      const created = await kit.webhooks.create(admin, { ...hook, authType: "bearer", authConfig: { token: "tok-1" } });
      const sealedToken = async () => unseal((await kit.storage.read((tx) => tx.webhooks.findById(organizationId, created.id)))!.authConfig.token!);
      await kit.webhooks.update(admin, created.id, { name: "renamed" });
      expect(await sealedToken()).toBe("tok-1");
      const changed = await kit.webhooks.update(admin, created.id, { authType: "bearer", authConfig: { token: "tok-2" } });
      expect(changed.authConfig).toEqual({ token: "********" });
      expect(await sealedToken()).toBe("tok-2");
      expect((await failure(kit.webhooks.update(admin, created.id, { authConfig: {} }))).paths).toEqual(["authConfig"]);
      expect((await failure(kit.webhooks.update(admin, created.id, { authType: "basic" }))).paths).toEqual(["authConfig"]);
      const none = await kit.webhooks.update(admin, created.id, { authType: "none" });
      expect(none).toMatchObject({ authType: "none", authConfig: {} });
    });

    it("disables and re-enables, with a reason while disabled", async () => {
      const created = await kit.webhooks.create(admin, hook);
      expect(await kit.webhooks.update(admin, created.id, { status: "disabled" })).toMatchObject({ status: "disabled", disabledReason: "Disabled on request" });
      expect(await kit.webhooks.update(admin, created.id, { status: "active" })).toMatchObject({ status: "active", disabledReason: null });
    });

    it("delete removes it (404 after), answers the record, and records webhook.deleted", async () => {
      const created = await kit.webhooks.create(admin, hook);
      const deleted = await kit.webhooks.delete(admin, created.id);
      expect(deleted.id).toBe(created.id);
      expect((await failure(kit.webhooks.get(admin, created.id))).code).toBe("not_found");
      expect((await failure(kit.webhooks.delete(admin, created.id))).code).toBe("not_found");
      expect(await trailText(kit, organizationId)).toContain("webhook.deleted");
    });
  });

  describe("secrets never reach the audit trail or the outbox", () => {
    it("through create, update, rotation, test and delete", async () => {
      const created = await kit.webhooks.create(admin, { ...hook, authType: "header", authConfig: { name: "X-Token", value: "header-secret-value" } });
      await kit.webhooks.update(admin, created.id, { authType: "basic", authConfig: { username: "u", password: "basic-secret-value" } });
      const rotated = await kit.webhooks.rotateSecret(admin, created.id);
      await kit.webhooks.test(admin, created.id);
      const stored = (await kit.storage.read((tx) => tx.webhooks.findById(organizationId, created.id)))!;
      await kit.webhooks.delete(admin, created.id);
      const trail = await trailText(kit, organizationId);
      for (const name of ["webhook.created", "webhook.updated", "webhook.secret_rotated", "webhook.test", "webhook.deleted"]) expect(trail).toContain(name);
      for (const secret of [created.secret, rotated.secret, "header-secret-value", "basic-secret-value", stored.secret, stored.previousSecret!, stored.authConfig.password!]) {
        expect(trail).not.toContain(secret);
      }
      expect(trail).not.toContain("v1.");
    });
  });

  describe("rotation", () => {
    it("shows a new secret once; the previous one keeps signing for 24 hours", async () => {
      const created = await kit.webhooks.create(admin, hook);
      clock.advance(60_000);
      const rotated = await kit.webhooks.rotateSecret(admin, created.id);
      expect(isWebhookSecret(rotated.secret)).toBe(true);
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.secretStart).toBe(rotated.secret.slice(0, 10));
      const stored = (await kit.storage.read((tx) => tx.webhooks.findById(organizationId, created.id)))!;
      expect(unseal(stored.secret)).toBe(rotated.secret);
      expect(unseal(stored.previousSecret!)).toBe(created.secret);
      expect(stored.previousSecretExpiresAt).toBe(new Date(clock.now().getTime() + secretRotationGraceMs).toISOString());
      expect(await kit.webhooks.get(admin, created.id)).not.toHaveProperty("secret");

      // Both signatures travel during the grace period; receivers holding either secret verify.
      const transport = recordingTransport();
      const dispatcher = createDispatcher(kit.deps, { transport, unseal, random: () => 0 });
      await kit.webhooks.test(admin, created.id);
      await dispatcher.step();
      const [request] = transport.sent;
      const headers = request!.headers as unknown as Parameters<typeof verifySignature>[1];
      expect(verifySignature(created.secret, headers, request!.body, clock.now())).toBe(true);
      expect(verifySignature(rotated.secret, headers, request!.body, clock.now())).toBe(true);
    });
  });

  describe("test event", () => {
    it("goes to that subscription only, as one pending delivery named in the answer", async () => {
      const target = await kit.webhooks.create(admin, hook);
      const bystander = await kit.webhooks.create(admin, { ...hook, url: "https://bystander.example.com/hook", events: ["*"] });
      const delivery = await kit.webhooks.test(admin, target.id);
      expect(delivery).toMatchObject({ id: expect.stringMatching(/^dlv_/), webhookId: target.id, eventName: "webhook.test", status: "pending", attemptCount: 0, attempts: [] });
      const event = await kit.storage.read((tx) => tx.events.findById(organizationId, delivery.eventId));
      expect(event).toMatchObject({ name: "webhook.test", resourceId: target.id, payload: { webhookId: target.id } });

      const transport = recordingTransport();
      const dispatcher = createDispatcher(kit.deps, { transport, unseal, random: () => 0 });
      await dispatcher.step();
      const tests = transport.sent.filter((r) => JSON.parse(r.body).type === "webhook.test");
      expect(tests).toHaveLength(1);
      expect(tests[0]!.url).toBe(target.url);
      expect(tests[0]!.headers["webhook-id"]).toBe(delivery.id);
      expect(verifySignature(target.secret, tests[0]!.headers as never, tests[0]!.body, clock.now())).toBe(true);
      // The bystander (subscribed to everything) gets its own webhook.* events, never the test.
      expect(transport.sent.filter((r) => r.url === bystander.url).map((r) => JSON.parse(r.body).type)).not.toContain("webhook.test");
      const history = await kit.webhooks.listDeliveries(admin, target.id, { eventName: "webhook.test" });
      expect(history.data.map((d) => [d.id, d.status, d.attemptCount])).toEqual([[delivery.id, "delivered", 1]]);
    });

    it("is refused (409 conflict) on a disabled subscription", async () => {
      const created = await kit.webhooks.create(admin, hook);
      await kit.webhooks.update(admin, created.id, { status: "disabled" });
      expect((await failure(kit.webhooks.test(admin, created.id))).code).toBe("conflict");
      expect((await kit.webhooks.listDeliveries(admin, created.id, {})).data).toEqual([]);
    });
  });

  describe("delivery history and redelivery", () => {
    /** A subscription whose test delivery failed for good (receiver 500, no retries). */
    async function failedDelivery() {
      const created = await kit.webhooks.create(admin, { ...hook, maxRetries: 0 });
      const delivery = await kit.webhooks.test(admin, created.id);
      let status = 500;
      const transport = recordingTransport(() => status);
      const dispatcher = createDispatcher(kit.deps, { transport, unseal, random: () => 0 });
      await dispatcher.step();
      return { created, delivery, dispatcher, transport, succeedFromNowOn: () => (status = 204) };
    }

    it("lists deliveries with their attempts, filtered by status and event name, in keyset pages", async () => {
      const { created, delivery } = await failedDelivery();
      const more = [await kit.webhooks.test(admin, created.id), await kit.webhooks.test(admin, created.id)];
      const all = await kit.webhooks.listDeliveries(admin, created.id, {});
      expect(all.data.map((d) => d.id)).toEqual([more[1]!.id, more[0]!.id, delivery.id]);
      const failed = await kit.webhooks.listDeliveries(admin, created.id, { status: "failed" });
      expect(failed.data).toHaveLength(1);
      expect(failed.data[0]).toMatchObject({ id: delivery.id, status: "failed", attemptCount: 1, lastResponseStatus: 500, lastErrorClass: "http", nextAttemptAt: null });
      expect(failed.data[0]!.attempts).toEqual([
        { id: expect.stringMatching(/^att_/), attempt: 1, requestedAt: clock.now().toISOString(), durationMs: 3, responseStatus: 500, responseBody: "ok", errorClass: "http", nextAttemptAt: null },
      ]);
      expect((await kit.webhooks.listDeliveries(admin, created.id, { status: ["pending", "failed"] })).data).toHaveLength(3);
      expect((await kit.webhooks.listDeliveries(admin, created.id, { eventName: "case.created" })).data).toEqual([]);
      const page = await kit.webhooks.listDeliveries(admin, created.id, { limit: "2" });
      expect(page.data.map((d) => d.id)).toEqual([more[1]!.id, more[0]!.id]);
      const rest = await kit.webhooks.listDeliveries(admin, created.id, { limit: "2", cursor: page.nextCursor! });
      expect(rest).toMatchObject({ data: [{ id: delivery.id }], nextCursor: null });
      for (const bad of [{ status: "lost" }, { eventName: "Case Created" }, { webhookId: created.id }, { limit: "0" }]) {
        expect((await failure(kit.webhooks.listDeliveries(admin, created.id, bad))).code).toBe("validation_failed");
      }
      expect((await failure(kit.webhooks.listDeliveries(admin, "whk_01kaaaaaaaaaaaaaaaaaaaaaaa", {}))).code).toBe("not_found");
    });

    it("puts a failed delivery back to pending, due now, same id; it is delivered with the same webhook-id", async () => {
      const { created, delivery, dispatcher, transport, succeedFromNowOn } = await failedDelivery();
      clock.advance(3_600_000);
      const again = await kit.webhooks.redeliver(admin, created.id, delivery.id);
      expect(again).toMatchObject({ id: delivery.id, status: "pending", nextAttemptAt: clock.now().toISOString(), completedAt: null, attemptCount: 1 });
      expect(again.attempts).toHaveLength(1);
      succeedFromNowOn();
      await dispatcher.step();
      const ids = transport.sent.filter((r) => JSON.parse(r.body).type === "webhook.test").map((r) => r.headers["webhook-id"]);
      expect(ids).toEqual([delivery.id, delivery.id]);
      const [after] = (await kit.webhooks.listDeliveries(admin, created.id, {})).data;
      expect(after).toMatchObject({ id: delivery.id, status: "delivered", attemptCount: 2 });
      expect(after!.attempts.map((a) => [a.attempt, a.responseStatus])).toEqual([[1, 500], [2, 204]]);
      expect(await trailText(kit, organizationId)).toContain("webhook.redelivered");
    });

    it("refuses what cannot be redelivered: not failed (409), another subscription's or organization's delivery (404), a disabled subscription (409)", async () => {
      const { created, delivery } = await failedDelivery();
      const pending = await kit.webhooks.test(admin, created.id);
      expect((await failure(kit.webhooks.redeliver(admin, created.id, pending.id))).code).toBe("invalid_transition");
      const otherHook = await kit.webhooks.create(admin, hook);
      expect((await failure(kit.webhooks.redeliver(admin, otherHook.id, delivery.id))).code).toBe("not_found");
      expect((await failure(kit.webhooks.redeliver(admin, created.id, "dlv_01kaaaaaaaaaaaaaaaaaaaaaaa"))).code).toBe("not_found");
      const other = await addOrganization(kit, "Other SOC");
      expect((await failure(kit.webhooks.redeliver(other.admin, created.id, delivery.id))).code).toBe("not_found");
      await kit.webhooks.update(admin, created.id, { status: "disabled" });
      expect((await failure(kit.webhooks.redeliver(admin, created.id, delivery.id))).code).toBe("conflict");
      expect((await kit.webhooks.listDeliveries(admin, created.id, { status: "failed" })).data.map((d) => d.id)).toEqual([delivery.id]);
    });
  });
});
