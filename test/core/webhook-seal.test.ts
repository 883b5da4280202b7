import { describe, expect, it } from "vitest";
import { createSealer } from "../../core/index.js";

describe("sealing webhook secrets (AES-256-GCM, key from the key-hash secret)", () => {
  const sealer = createSealer("deployment-secret-0123456789abcdef");

  it("opens what it sealed, unicode included", () => {
    for (const text of ["whsec_c2VjcmV0", "pässwörd ☕", "", "x".repeat(5000)]) expect(sealer.unseal(sealer.seal(text))).toBe(text);
  });

  it("writes a versioned prefix and never the clear text; a fresh nonce each time", () => {
    const a = sealer.seal("whsec_same");
    const b = sealer.seal("whsec_same");
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("whsec");
  });

  it("refuses a value sealed under another deployment's key", () => {
    const other = createSealer("another-deployment-secret-0123456789");
    expect(() => other.unseal(sealer.seal("whsec_x"))).toThrow(/does not open/);
  });

  it("refuses a value changed by one byte, and anything not sealed", () => {
    const sealed = sealer.seal("whsec_tamper");
    const body = Buffer.from(sealed.slice(3), "base64url");
    for (const index of [0, 12, body.length - 1]) {
      const altered = Buffer.from(body);
      altered[index]! ^= 1;
      expect(() => sealer.unseal(`v1.${altered.toString("base64url")}`)).toThrow();
    }
    expect(() => sealer.unseal("whsec_plain")).toThrow(/not a sealed/);
    expect(() => sealer.unseal("v1.AAAA")).toThrow(/not a sealed/);
    expect(() => sealer.unseal("v2." + sealed.slice(3))).toThrow(/not a sealed/);
  });

  it("the same key-hash secret opens values across sealer instances (every host derives the same key)", () => {
    const again = createSealer("deployment-secret-0123456789abcdef");
    expect(again.unseal(sealer.seal("whsec_shared"))).toBe("whsec_shared");
  });
});
