import pino from "pino";
import type { DestinationStream, Logger } from "pino";
import type { LogLevel } from "./config.js";
import type { AccessLogLine } from "./handle.js";
import { linesByTurn } from "./lines-by-turn.js";
import { apiBasePath } from "./route.js";

/**
 * Paths orchestrators, load balancers and Prometheus call every few seconds: their successful
 * answers are not logged unless asked (CASEKIT_LOG_PROBES), so they do not drown the lines that
 * matter.
 */
const probeRoutes: ReadonlySet<string> = new Set(["/livez", "/readyz", `${apiBasePath}/health`, "/metrics"]);

export interface HostLogOptions {
  level: LogLevel;
  /** Log successful probe answers too. */
  logProbes: boolean;
  /** Where the lines go; standard output through an asynchronous sonic-boom by default. */
  destination?: DestinationStream;
}

/** The structured log of `casekit serve`: one JSON object per line. */
export interface HostLog {
  logger: Logger;
  /** For the app's `logger` option: the access line at `info` (`error` for a 5xx). */
  access(line: AccessLogLine): void;
  /** For the app's `onUnexpectedError` option: the error's message and stack under the request id. */
  unexpected(error: unknown, context: { requestId: string }): void;
  /** Writes out whatever is still buffered; before the process exits. */
  flush(): Promise<void>;
}

/**
 * Lines are written through pino to an asynchronous destination: a request never waits for the
 * terminal or the log collector, the lines of one event-loop turn are handed over together
 * (lines-by-turn.ts), and lines written while a write is in flight go out together.
 * Each line has `level` (its name), `time` (ISO 8601) and `msg`, then its fields. What goes in is
 * chosen by the callers: the access line's fields (never headers, queries or bodies), start-up
 * and shutdown facts (the database URL with its password masked), never a key or a password.
 */
export function createHostLog(options: HostLogOptions): HostLog {
  const destination = options.destination ?? standardOutput();
  const logger = pino(
    {
      level: options.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return {
    logger,
    access(line) {
      // By route template, so the probes of an app mounted under a prefix are recognised too.
      if (!options.logProbes && line.status < 400 && probeRoutes.has(line.route)) return;
      const level = line.status >= 500 ? "error" : "info";
      if (logger.isLevelEnabled(level)) destination.write(accessLineText(level, line));
    },
    unexpected(error, { requestId }) {
      // Name, message and stack only (not pino's `err` serializer, which copies every property: a
      // driver's error may carry the statement's values).
      const described = error instanceof Error ? { type: error.name, message: error.message, stack: error.stack } : { type: typeof error, message: String(error) };
      logger.error({ requestId, error: described }, "unexpected error");
    },
    flush() {
      return new Promise((resolve) => logger.flush(() => resolve()));
    },
  };
}

/**
 * Standard output through sonic-boom, a turn's lines at a time (lines-by-turn.ts). What is still
 * pending when the process exits, an uncaught error included, is written out synchronously first
 * (pino's own exit hook flushes only what sonic-boom already holds).
 */
function standardOutput(): DestinationStream {
  const lines = linesByTurn(pino.destination({ dest: 1, sync: false }));
  process.once("exit", () => {
    try {
      lines.flushSync();
    } catch {
      // An output that cannot be written any more at exit: nothing left to do.
    }
  });
  return lines;
}

const quoted = JSON.stringify;
/** A number as JSON writes it: `null` for one that is not finite. */
const number = (value: number): string => (Number.isFinite(value) ? String(value) : "null");

/**
 * `number(value)` for a duration in hundredths of a millisecond (handle.ts rounds it so), written
 * from the whole number of hundredths: the same text (JavaScript writes k / 100 as k's digits with
 * the point two from the right, without trailing zeros), without the shortest-decimal search a
 * fractional number's `String` runs on every request. Any other value takes `number`.
 */
function milliseconds(value: number): string {
  const hundredths = Math.round(value * 100);
  if (hundredths / 100 !== value || hundredths < 0 || hundredths >= 1e15) return number(value);
  const whole = Math.floor(hundredths / 100);
  const fraction = hundredths % 100;
  if (fraction === 0) return String(whole);
  return fraction % 10 === 0 ? `${whole}.${fraction / 10}` : `${whole}.${fraction < 10 ? "0" : ""}${fraction}`;
}

/**
 * The access line as pino writes a line of this logger (`level`, `time`, the fields, `msg`), with
 * the line's own time, written directly: its members are known and few, so there is no object to
 * copy without `msg` and `time` and no walk over its keys. Through pino it cost about twice as
 * much, and it is written on every request.
 */
export function accessLineText(level: "info" | "error", line: AccessLogLine): string {
  let text = `{"level":"${level}","time":${quoted(line.time)},"requestId":${quoted(line.requestId)},"method":${quoted(line.method)},"route":${quoted(line.route)},"path":${quoted(line.path)},"status":${number(line.status)},"durationMs":${milliseconds(line.durationMs)}`;
  if (line.keyId !== undefined) text += `,"keyId":${quoted(line.keyId)}`;
  if (line.sessionId !== undefined) text += `,"sessionId":${quoted(line.sessionId)}`;
  if (line.organizationId !== undefined) text += `,"organizationId":${quoted(line.organizationId)}`;
  if (line.code !== undefined) text += `,"code":${quoted(line.code)}`;
  if (line.errorName !== undefined) text += `,"errorName":${quoted(line.errorName)}`;
  return `${text},"msg":${quoted(line.msg)}}\n`;
}
