import fc from "fast-check";
import ipaddr from "ipaddr.js";
import type { LookupFunction } from "node:net";
import { describe, expect, it } from "vitest";
import { createNodeTransport } from "../../adapters/outbound/node-transport.js";
import { embeddedIpv4, formatIp, parseCidr, parseIpv4, parseIpv6 } from "../../core/net/ip.js";
import { checkConnectAddress, checkWebhookUrl, forbiddenReason, parseWebhookAllowlist } from "../../core/webhooks/ssrf.js";

const none = parseWebhookAllowlist(undefined);

describe("IP parsing", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["10.0.258", "10.0.1.2"],
    ["169.254.169.254", "169.254.169.254"],
  ])("reads IPv4 %s as %s", (text, expected) => {
    expect(formatIp(parseIpv4(text)!)).toBe(expected);
  });

  it.each(["256.0.0.1", "1.2.3.4.5", "a.b.c.d", "", "1..2", "4294967296", "08.1.1.1"])("refuses %s as IPv4", (text) => {
    expect(parseIpv4(text)).toBeNull();
  });

  it.each([
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["::", "::"],
    ["fe80::1%eth0", "fe80::1"],
    ["::ffff:127.0.0.1", "::ffff:127.0.0.1"],
    ["::ffff:7f00:1", "::ffff:127.0.0.1"],
    ["2001:db8:0:0:0:0:0:1", "2001:db8::1"],
    ["64:ff9b::a9fe:a9fe", "64:ff9b::a9fe:a9fe"],
  ])("reads IPv6 %s", (text, expected) => {
    expect(formatIp(parseIpv6(text)!)).toBe(expected);
  });

  it.each(["1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "::ffff:300.0.0.1", "g::1", "1:2:3:4:5:6:7::8:9"])("refuses %s as IPv6", (text) => {
    expect(parseIpv6(text)).toBeNull();
  });

  it("finds the IPv4 inside mapped and well-known NAT64 IPv6 addresses, and only there", () => {
    for (const text of ["::ffff:10.0.0.1", "64:ff9b::10.0.0.1"]) expect(formatIp(embeddedIpv4(parseIpv6(text)!)!)).toBe("10.0.0.1");
    // IPv4-compatible, local-use NAT64 and IPv4-translated forms are refused outright instead.
    for (const text of ["2001:db8::1", "::1", "::10.0.0.1", "64:ff9b:1::a00:1", "::ffff:0:a00:1"]) expect(embeddedIpv4(parseIpv6(text)!)).toBeNull();
  });
});

describe("forbidden addresses", () => {
  const hostile = [
    "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
    "169.254.169.254", "100.64.0.1", "100.127.255.255", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1",
    "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
    "64:ff9b::7f00:1", "::127.0.0.1",
    // Ranges the hand-written table missed: NAT64 local use, Teredo, IPv6 documentation (RFC 9637),
    // IPv4-translated, IPv4-compatible of a public address, benchmarking, segment routing, ORCHIDv2.
    "64:ff9b:1::808:808", "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "3fff::1", "3fff:fff::1",
    "::ffff:0:808:808", "::8.8.8.8", "2001:2::1", "5f00::1", "2001:20::1", "192.0.0.8", "192.31.196.1",
  ];
  it.each(hostile)("refuses %s", (address) => {
    expect(forbiddenReason(parseIpv6(address) ?? parseIpv4(address)!)).not.toBeNull();
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])("allows public %s", (address) => {
    expect(forbiddenReason(parseIpv6(address) ?? parseIpv4(address)!)).toBeNull();
  });

  // The whole class: an address is allowed exactly when ipaddr.js calls it unicast (an IPv4-mapped
  // or well-known NAT64 address by the IPv4 it carries; IPv4-compatible ::/96 never). Addresses
  // are drawn near the special ranges as well as at random, so every range is visited.
  const special = ["0.0.0.0", "10.0.0.0", "100.64.0.0", "127.0.0.0", "169.254.0.0", "172.16.0.0", "192.0.0.0", "192.0.2.0", "192.168.0.0", "198.18.0.0", "224.0.0.0", "240.0.0.0", "255.255.255.255"];
  const special6 = ["::", "::1", "::ffff:0:0", "::ffff:0:0:0", "64:ff9b::", "64:ff9b:1::", "100::", "2001::", "2001:2::", "2001:db8::", "2002::", "3fff::", "5f00::", "fc00::", "fe80::", "fec0::", "ff00::"];
  const near = (bases: string[], size: number) =>
    fc.tuple(fc.constantFrom(...bases), fc.uint8Array({ minLength: size, maxLength: size }), fc.integer({ min: 0, max: size })).map(([base, noise, keep]) => {
      const bytes = Uint8Array.from(ipaddr.parse(base).toByteArray());
      for (let i = keep; i < size; i++) bytes[i] = noise[i]!; // keep the first bytes of the range, vary the rest
      return bytes;
    });
  const addresses = fc.oneof(
    fc.uint8Array({ minLength: 4, maxLength: 4 }),
    fc.uint8Array({ minLength: 16, maxLength: 16 }),
    near(special, 4),
    near(special6, 16),
  );

  const expected = (bytes: Uint8Array): boolean => {
    const ip = ipaddr.fromByteArray([...bytes]);
    if (ip.kind() === "ipv6") {
      const v6 = ip as ipaddr.IPv6;
      if (v6.range() === "ipv4Mapped" || v6.match(ipaddr.parseCIDR("64:ff9b::/96") as [ipaddr.IPv6, number])) return expected(bytes.slice(12));
      if (v6.match(ipaddr.parseCIDR("::/96") as [ipaddr.IPv6, number])) return false;
    }
    return ip.range() === "unicast";
  };

  it("allows exactly what ipaddr.js calls unicast, at create and at connect alike", () => {
    fc.assert(
      fc.property(addresses, (bytes) => {
        const allowed = expected(bytes);
        expect(forbiddenReason(bytes) === null).toBe(allowed);
        const text = formatIp(bytes);
        const host = bytes.length === 16 ? `[${text}]` : text;
        expect(checkWebhookUrl(`https://${host}/hook`, none).ok).toBe(allowed);
        expect(checkConnectAddress(none, "hooks.example.com", text, 443) === null).toBe(allowed);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("webhook URLs", () => {
  it.each([
    ["http://127.0.0.1/hook", "loopback"],
    ["http://0x7f.1/hook", "loopback"],
    ["http://2130706433/hook", "loopback"],
    ["http://0177.0.0.1/", "loopback"],
    ["http://[::1]:8080/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[::ffff:a9fe:a9fe]/latest/meta-data", "link-local"],
    ["http://169.254.169.254/latest/meta-data", "link-local"],
    ["http://[fd00:ec2::254]/", "unique local"],
    ["http://100.64.1.1/", "carrier-grade"],
    ["http://0.0.0.0:3000/", "unspecified"],
    ["http://localhost:3000/", "local host"],
    ["http://metadata.google.internal/", "local host"],
    ["http://localhost./", "local host"],
    ["http://LOCALHOST../", "local host"],
    ["http://x.internal./", "local host"],
    ["http://printer.local./", "local host"],
    ["http://router.home.arpa/", "local host"],
    ["http://[::ffff:0:7f00:1]/", "IPv4-translated"],
    ["http://[64:ff9b:1::a9fe:a9fe]/", "NAT64 local-use"],
    ["http://[2001::a9fe:a9fe]/", "Teredo"],
    ["http://[3fff::1]/", "reserved"],
    ["file:///etc/passwd", "http or https"],
    ["gopher://example.com/", "http or https"],
    ["ftp://example.com/", "http or https"],
    ["https://user:pass@example.com/", "credentials"],
    ["not a url", "not a valid URL"],
  ])("refuses %s", (url, reason) => {
    const verdict = checkWebhookUrl(url, none);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(reason);
  });

  it("accepts public http(s) URLs and host names (their addresses are checked at connect time)", () => {
    expect(checkWebhookUrl("https://hooks.example.com/casekit", none)).toMatchObject({ ok: true, port: 443 });
    expect(checkWebhookUrl("http://93.184.216.34:8080/x", none)).toMatchObject({ ok: true, port: 8080 });
  });

  it("lets the operator allow hosts, addresses and ranges, optionally by port", () => {
    const allow = parseWebhookAllowlist("127.0.0.1:8787, 10.1.0.0/16, hooks.internal, [::1]:9000");
    expect(checkWebhookUrl("http://127.0.0.1:8787/in", allow).ok).toBe(true);
    expect(checkWebhookUrl("http://127.0.0.1:8788/in", allow).ok).toBe(false);
    expect(checkWebhookUrl("http://10.1.200.3/in", allow).ok).toBe(true);
    expect(checkWebhookUrl("http://10.2.0.1/in", allow).ok).toBe(false);
    expect(checkWebhookUrl("http://hooks.internal/in", allow).ok).toBe(true);
    expect(checkWebhookUrl("http://hooks.internal./in", allow).ok).toBe(true);
    expect(checkWebhookUrl("http://[::1]:9000/in", allow).ok).toBe(true);
    expect(checkWebhookUrl("http://[::ffff:127.0.0.1]:8787/in", allow).ok).toBe(true);
    expect(() => parseWebhookAllowlist("http://x")).toThrow(/CASEKIT_WEBHOOK_ALLOWLIST/);
    expect(() => parseWebhookAllowlist("127.0.0.1:99999")).toThrow(/bad port/);
    expect(parseCidr("10.0.0.0/33")).toBeNull();
  });

  it("checks the address actually connected to, so DNS rebinding fails", () => {
    const allow = parseWebhookAllowlist("127.0.0.1:8787");
    expect(checkConnectAddress(none, "hooks.example.com", "93.184.216.34", 443)).toBeNull();
    expect(checkConnectAddress(none, "rebind.example.com", "127.0.0.1", 443)).toContain("loopback");
    expect(checkConnectAddress(none, "rebind.example.com", "::ffff:10.0.0.1", 443)).toContain("private");
    expect(checkConnectAddress(allow, "127.0.0.1", "127.0.0.1", 8787)).toBeNull();
    expect(checkConnectAddress(allow, "evil.example.com", "127.0.0.1", 8788)).toContain("loopback");
    expect(checkConnectAddress(none, "rebind.example.com", "64:ff9b:1::7f00:1", 443)).toContain("NAT64");
    expect(checkConnectAddress(none, "rebind.example.com", "2001::1", 443)).toContain("Teredo");
    // The allowlist still overrides for the ranges it names.
    expect(checkConnectAddress(parseWebhookAllowlist("2001::/32"), "teredo.example.com", "2001::1", 443)).toBeNull();
  });

  it("refuses, in the node transport, a name whose addresses fall in the ranges the old table missed", async () => {
    for (const address of ["64:ff9b:1::808:808", "2001::1", "3fff::1", "::ffff:0:808:808"]) {
      const resolver: LookupFunction = (_host, _options, callback) => (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family: 6 }]);
      const transport = createNodeTransport({ allowlist: none, lookup: resolver });
      await expect(transport.send({ url: "http://rebind.example.com/in", method: "POST", headers: {}, body: "{}", timeoutMs: 1000 })).rejects.toMatchObject({ errorClass: "blocked" });
    }
  });
});
