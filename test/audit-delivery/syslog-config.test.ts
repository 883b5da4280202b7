import { beforeAll, describe, expect, it } from "vitest";
import { isCaseKitError } from "../../core/index.js";
import { parseWebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { checkSyslogSinkConfig, parseSyslogTarget } from "../../core/audit-sinks/config.js";
import { selfSignedCertificate } from "../helpers/syslog-receiver.js";

const none = parseWebhookAllowlist("");

function problems(input: unknown, allowlist = none): { path: string; message: string }[] {
  try {
    checkSyslogSinkConfig(input, allowlist);
  } catch (error) {
    // The schema's refusals and the ones of a document that does not hold together alike.
    if (isCaseKitError(error) && (error.code === "validation_failed" || error.code === "invalid_sink_config")) return error.errors ?? [];
    throw error;
  }
  throw new Error("expected a refusal");
}

let certificate: { cert: string; key: string };
beforeAll(() => {
  certificate = selfSignedCertificate();
});

describe("syslog sink configuration", () => {
  it("accepts a public target with defaults for facility and enterprise number", () => {
    expect(checkSyslogSinkConfig({ target: "tls://SIEM.example.com:6514" }, none)).toEqual({
      target: { protocol: "tls", host: "siem.example.com", port: 6514 },
      facility: 13,
      enterpriseId: "32473",
    });
    expect(checkSyslogSinkConfig({ target: "tcp://[2001:4860::8888]:514", facility: 16, enterpriseId: "1.3.6" }, none)).toMatchObject({
      target: { protocol: "tcp", host: "2001:4860::8888", port: 514 },
      facility: 16,
      enterpriseId: "1.3.6",
    });
  });

  it("carries a CA and servername for tls", () => {
    const config = checkSyslogSinkConfig({ target: "tls://logs.example.com:6514", ca: `${certificate.cert}\n${certificate.cert}`, servername: "collector" }, none);
    expect(config.target).toMatchObject({ ca: expect.stringContaining("BEGIN CERTIFICATE"), servername: "collector" });
  });

  it("refuses targets that are not tcp:// or tls:// host:port", () => {
    for (const target of ["udp://logs.example.com:514", "https://logs.example.com", "tls://logs.example.com", "tls://logs.example.com:6514/path", "tls://user@logs.example.com:6514", "tcp://logs.example.com:0", "tcp://logs.example.com:70000", "logs.example.com:514"]) {
      expect(problems({ target }), target).toEqual([expect.objectContaining({ path: "target" })]);
    }
    expect(typeof parseSyslogTarget("tcp://a:1")).toBe("object");
  });

  it("applies the webhooks' SSRF rule to the host, and the allowlist opens it", () => {
    for (const target of ["tcp://127.0.0.1:514", "tcp://10.1.2.3:514", "tls://[::1]:6514", "tls://169.254.169.254:6514", "tcp://localhost:514", "tcp://collector.internal:514", "tcp://[::ffff:192.168.0.1]:514"]) {
      expect(problems({ target }), target).toEqual([{ path: "target", message: expect.stringMatching(/address|local host/) }]);
    }
    expect(checkSyslogSinkConfig({ target: "tcp://10.1.2.3:514" }, parseWebhookAllowlist("10.1.0.0/16")).target.host).toBe("10.1.2.3");
    expect(problems({ target: "tcp://10.1.2.3:515" }, parseWebhookAllowlist("10.1.2.3:514"))).toHaveLength(1);
  });

  it("lists every problem: tls-only options on tcp, a CA that is not certificates, bad facility and enterprise number, unknown fields", () => {
    expect(problems({ target: "tcp://logs.example.com:514", ca: certificate.cert, servername: "x" }).map((p) => p.path)).toEqual(["ca", "servername"]);
    expect(problems({ target: "tls://logs.example.com:6514", ca: "not pem" })).toEqual([{ path: "ca", message: expect.stringMatching(/PEM/) }]);
    expect(problems({ target: "tls://logs.example.com:6514", ca: `${certificate.cert}\n${certificate.key}` })).toEqual([{ path: "ca", message: expect.stringMatching(/certificates only/) }]);
    expect(problems({ target: "tls://logs.example.com:6514", ca: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----" })).toEqual([{ path: "ca", message: "certificate 1 does not parse" }]);
    expect(problems({ target: "tls://logs.example.com:6514", facility: 24, enterpriseId: "abc", extra: 1 }).map((p) => p.path).sort()).toEqual(["enterpriseId", "extra", "facility"]);
  });
});
