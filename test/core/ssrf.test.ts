import { describe, expect, it } from "vitest";
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

  it("finds the IPv4 inside mapped, compatible and NAT64 IPv6 addresses", () => {
    for (const text of ["::ffff:10.0.0.1", "::10.0.0.1", "64:ff9b::10.0.0.1"]) expect(formatIp(embeddedIpv4(parseIpv6(text)!)!)).toBe("10.0.0.1");
    expect(embeddedIpv4(parseIpv6("2001:db8::1")!)).toBeNull();
    expect(embeddedIpv4(parseIpv6("::1")!)).toBeNull();
  });
});

describe("forbidden addresses", () => {
  const hostile = [
    "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
    "169.254.169.254", "100.64.0.1", "100.127.255.255", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1",
    "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
    "64:ff9b::7f00:1", "::127.0.0.1",
  ];
  it.each(hostile)("refuses %s", (address) => {
    expect(forbiddenReason(parseIpv6(address) ?? parseIpv4(address)!)).not.toBeNull();
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows public %s", (address) => {
    expect(forbiddenReason(parseIpv6(address) ?? parseIpv4(address)!)).toBeNull();
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
  });
});
