import { describe, expect, it } from "vitest";
import {
  auditSyslogFormatter,
  escapeParamValue,
  formatStructuredData,
  formatSyslogMessage,
  frameOctetCounted,
  headerField,
  timestampField,
} from "../../server/audit-delivery/syslog-format.js";
import { createFrameReader } from "../helpers/syslog-receiver.js";
import { auditEvent } from "./synthetic-audit.js";

const base = {
  facility: 13,
  severity: "notice" as const,
  time: "2026-01-01T00:00:01.000Z",
  hostname: "casekit-1",
  appName: "casekit",
  msgId: "case.update",
  structuredData: {},
  message: "{}",
};

describe("RFC 5424 formatting", () => {
  it("computes PRI as facility × 8 + severity and writes version 1", () => {
    expect(formatSyslogMessage(base)).toBe("<109>1 2026-01-01T00:00:01.000Z casekit-1 casekit - case.update - \uFEFF{}");
    expect(formatSyslogMessage({ ...base, facility: 0, severity: "emergency" }).startsWith("<0>1 ")).toBe(true);
    expect(formatSyslogMessage({ ...base, facility: 23, severity: "debug" }).startsWith("<191>1 ")).toBe(true);
    expect(formatSyslogMessage({ ...base, facility: 16, severity: "warning" }).startsWith("<132>1 ")).toBe(true);
  });

  it("writes an RFC 3339 timestamp as it is, and NILVALUE for anything else", () => {
    expect(timestampField("2026-01-01T00:00:01.123456+02:00")).toBe("2026-01-01T00:00:01.123456+02:00");
    for (const time of ["2026-01-01 00:00:01", "2026-01-01T00:00:01.1234567Z", "yesterday", ""]) {
      expect(formatSyslogMessage({ ...base, time }).startsWith("<109>1 - casekit-1 ")).toBe(true);
    }
  });

  it("refuses a facility outside 0-23", () => {
    expect(() => formatSyslogMessage({ ...base, facility: 24 })).toThrow(RangeError);
    expect(() => formatSyslogMessage({ ...base, facility: -1 })).toThrow(RangeError);
    expect(() => formatSyslogMessage({ ...base, facility: 1.5 })).toThrow(RangeError);
  });

  it("keeps header fields printable US-ASCII, bounded, and NILVALUE when empty", () => {
    expect(headerField("host name\twith ü", 255)).toBe("host_name_with__");
    expect(headerField("", 48)).toBe("-");
    expect(headerField(undefined, 48)).toBe("-");
    expect(headerField("a".repeat(40), 32)).toBe("a".repeat(32));
    const line = formatSyslogMessage({ ...base, msgId: "x".repeat(40), hostname: "h".repeat(300) });
    const [, , hostname, , , msgId] = line.split(" ");
    expect(hostname).toHaveLength(255);
    expect(msgId).toHaveLength(32);
  });

  it("escapes '\"', '\\' and ']' in parameter values (RFC 5424 §6.3.3) and nothing else", () => {
    expect(escapeParamValue('a"b\\c]d')).toBe('a\\"b\\\\c\\]d');
    expect(escapeParamValue("plain [x] = ü")).toBe("plain [x\\] = ü");
    expect(formatStructuredData({ "casekit@32473": { note: 'say "hi"]', gone: undefined } })).toBe('[casekit@32473 note="say \\"hi\\"\\]"]');
    expect(formatStructuredData({})).toBe("-");
  });

  it("refuses structured-data names that would break the syntax", () => {
    for (const name of ["has space", "eq=uals", 'quo"te', "brack]et", "", "n".repeat(33)]) {
      expect(() => formatStructuredData({ [name]: {} })).toThrow(/structured-data name/);
      expect(() => formatStructuredData({ ok: { [name]: "v" } })).toThrow(/structured-data name/);
    }
    expect(() => formatStructuredData({ ok: { "a@b": "v" } })).toThrow(/structured-data name/);
  });
});

describe("octet-counting framing (RFC 6587 §3.4.1)", () => {
  it("prefixes the byte length, not the character count", () => {
    const message = "<109>1 - - - - - - \uFEFFgrüße ☃";
    const frame = frameOctetCounted(message);
    const length = Buffer.byteLength(message, "utf8");
    expect(length).toBeGreaterThan(message.length);
    expect(frame.subarray(0, String(length).length + 1).toString()).toBe(`${length} `);
    expect(frame.length).toBe(String(length).length + 1 + length);
  });

  it("round-trips any split of concatenated frames, messages with newlines included", () => {
    const messages = ["a", "multi\nline\nmessage", "ü".repeat(100), "x".repeat(5000)];
    const stream = Buffer.concat(messages.map(frameOctetCounted));
    for (const step of [1, 3, 7, 64, stream.length]) {
      const read: string[] = [];
      const feed = createFrameReader((m) => read.push(m));
      for (let i = 0; i < stream.length; i += step) feed(stream.subarray(i, i + step));
      expect(read).toEqual(messages);
    }
  });
});

describe("audit events as syslog messages", () => {
  const format = auditSyslogFormatter({ facility: 13, hostname: "siem-feed", enterpriseId: "32473" });

  it("uses the action as MSGID, the outcome for severity, identifying fields as structured data and the event as MSG", () => {
    const event = auditEvent(3, "org_a", { target: { type: "case", id: 'case_"]\\' } });
    const line = format(event);
    expect(line.startsWith("<109>1 2026-01-01T00:00:03.000Z siem-feed casekit - case.update [casekit@32473 ")).toBe(true);
    expect(line).toContain('org="org_a" seq="3" id="aud_org_a_00000003" outcome="success" actorType="user" actorId="user_3" targetType="case" targetId="case_\\"\\]\\\\" requestId="req_3"]');
    expect(JSON.parse(line.slice(line.indexOf("\uFEFF") + 1))).toEqual(event);
    // Denied (and any other non-success outcome) is a warning: facility 13 × 8 + 4.
    expect(format(auditEvent(5)).startsWith("<108>1 ")).toBe(true);
  });

  it("leaves out a missing request id instead of writing an empty value", () => {
    expect(format(auditEvent(1, "org_a", { requestId: null }))).not.toContain("requestId=");
  });
});
