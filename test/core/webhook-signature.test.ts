import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, isWebhookSecret, signedHeaders, verifySignature } from "../../core/webhooks/signature.js";

describe("Standard Webhooks signatures", () => {
  const secret = generateWebhookSecret();
  const at = new Date();
  const body = JSON.stringify({ type: "case.created", data: { id: "case_01", title: "Ünïcode ✓" } });
  const headers = signedHeaders([secret], "evt_01abc", at, body);

  it("makes whsec_ secrets of 32 random bytes", () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(isWebhookSecret(secret)).toBe(true);
    expect(isWebhookSecret("whsec_short")).toBe(false);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it("verifies with the standardwebhooks library", () => {
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it.each([
    ["body", (h: typeof headers) => ({ headers: h, body: body.replace("Ü", "U") })],
    ["id", (h: typeof headers) => ({ headers: { ...h, "webhook-id": "evt_01abd" }, body })],
    ["timestamp", (h: typeof headers) => ({ headers: { ...h, "webhook-timestamp": String(Number(h["webhook-timestamp"]) + 1) }, body })],
  ])("fails verification when one byte of the %s changes", (_part, tamper) => {
    const changed = tamper(headers);
    expect(() => new Webhook(secret).verify(changed.body, { ...changed.headers })).toThrow();
    expect(verifySignature(secret, changed.headers, changed.body, at)).toBe(false);
  });

  it("sends both signatures during a rotation, so either secret verifies", () => {
    const next = generateWebhookSecret();
    const rotating = signedHeaders([next, secret], "evt_02", at, body);
    expect(rotating["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(secret).verify(body, { ...rotating })).toBeTruthy();
    expect(new Webhook(next).verify(body, { ...rotating })).toBeTruthy();
    expect(verifySignature(next, rotating, body, at)).toBe(true);
  });

  it("refuses stale timestamps", () => {
    expect(verifySignature(secret, headers, body, new Date(at.getTime() + 301_000))).toBe(false);
    expect(verifySignature(secret, headers, body, new Date(at.getTime() + 299_000))).toBe(true);
  });
});
