import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import type { Dispatcher } from "undici";
import type { OutboundRequest, OutboundResponse, OutboundTransport } from "../../core/ports/outbound.js";
import { OutboundError } from "../../core/ports/outbound.js";
import { rememberBounded } from "../../core/bounded-map.js";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { checkConnectAddress, checkWebhookUrl } from "../../core/webhooks/ssrf.js";
import { blockedConnectionCode, blockedHostCode } from "./connect-guard.js";
import { createGuardedPool } from "./guarded-pool.js";

export interface NodeTransportOptions {
  allowlist: WebhookAllowlist;
  /** How much of a response body is kept for the delivery history. Default 4 KiB. */
  maxResponseBytes?: number;
  /** Name resolution; node's dns.lookup by default (tests substitute a rebinding resolver). */
  lookup?: LookupFunction;
  /** Sockets open to one target (scheme, host, port) at once. Default 16. */
  socketsPerTarget?: number;
  /** Sockets open in all. Default 256. */
  sockets?: number;
  /** A kept-alive socket idle this long is closed. Default 4 s (below node's 5 s server default, so the receiver rarely closes first). */
  idleTimeoutMs?: number;
}

export interface NodeTransport extends OutboundTransport {
  /** Closes every kept socket; call it once nothing is being sent any more (the dispatch loop stopped). */
  close(): void;
}

export const transportDefaults = { socketsPerTarget: 16, sockets: 256, idleTimeoutMs: 4_000 } as const;

/** Verdicts on URLs already checked, kept: the allowlist is fixed for the transport's life. */
const keptVerdicts = 1_000;

/**
 * The webhook transport, on undici. SSRF defence in three places: the URL (scheme, credentials,
 * literal addresses), and for every new connection every address DNS returns before the socket
 * connects (so a name that resolves to 127.0.0.1 never connects: DNS rebinding fails) and the
 * socket's remote address once connected (adapters/outbound/guarded-pool.ts). Sockets are kept
 * alive and reused per target, bounded; redirects are returned, not followed.
 */
export function createNodeTransport(options: NodeTransportOptions): NodeTransport {
  const maxBytes = options.maxResponseBytes ?? 4096;
  const pool = createGuardedPool({
    allowlist: options.allowlist,
    lookup: options.lookup ?? (dnsLookup as LookupFunction),
    socketsPerTarget: options.socketsPerTarget ?? transportDefaults.socketsPerTarget,
    sockets: options.sockets ?? transportDefaults.sockets,
    idleTimeoutMs: options.idleTimeoutMs ?? transportDefaults.idleTimeoutMs,
  });
  // A subscription's URL is checked on every attempt; the same text always gets the same verdict.
  const verdicts = new Map<string, Verdict>();

  function verdictOf(url: string): Verdict {
    const known = verdicts.get(url);
    if (known) return known;
    const checked = checkWebhookUrl(url, options.allowlist);
    let verdict: Verdict;
    if (!checked.ok) verdict = { refused: `The URL ${checked.reason}` };
    else {
      const host = checked.url.hostname.replace(/^\[|\]$/g, "");
      const refused = isIP(host) ? checkConnectAddress(options.allowlist, host, host, checked.port) : null;
      verdict = refused ? { refused: `The URL ${refused}` } : { origin: checked.url.origin, path: checked.url.pathname + checked.url.search };
    }
    rememberBounded(verdicts, url, verdict, keptVerdicts);
    return verdict;
  }

  /**
   * One exchange, answered within `timeoutMs` of now; a kept socket that went stale is reported
   * as such. Driven by undici's handler calls directly: no stream, promise or AbortSignal of its
   * own per attempt (an AbortSignal alone cost about 10 µs of a delivery's CPU).
   */
  function exchange(target: Target, request: OutboundRequest, timeoutMs: number, elapsed: () => number): Promise<OutboundResponse> {
    return new Promise<OutboundResponse>((done, fail) => {
      let settled = false;
      let controller: Dispatcher.DispatchController | null = null;
      let status = 0;
      let retryAfter: string | null = null;
      const chunks: Buffer[] = [];
      let kept = 0;
      const settle = (outcome: OutboundResponse | Error) => {
        clearTimeout(deadline);
        if (settled) return;
        settled = true;
        if (outcome instanceof Error) fail(outcome);
        else done(outcome);
      };
      // The deadline answers at once, even while the request still waits for a connection; the
      // exchange is then cut where it stands (undici closes a socket cut mid-exchange, never reused).
      const deadline = setTimeout(() => {
        settle(new OutboundError("timeout", `No answer within ${request.timeoutMs} ms`, elapsed()));
        controller?.abort(cut);
      }, timeoutMs);
      pool.agent.dispatch(
        { origin: target.origin, path: target.path, method: request.method, headers: request.headers, body: request.body },
        {
          onRequestStart(started) {
            controller = started;
            if (settled) started.abort(cut);
          },
          onResponseStart(_controller, statusCode, headers) {
            status = statusCode;
            const header = headers["retry-after"];
            retryAfter = typeof header === "string" ? header : null;
          },
          // Read to the end even past what is kept: only a finished response frees its socket.
          onResponseData(_controller, chunk) {
            if (kept >= maxBytes) return;
            chunks.push(chunk.subarray(0, maxBytes - kept));
            kept += Math.min(chunk.length, maxBytes - kept);
          },
          onResponseEnd() {
            clearTimeout(deadline);
            const answer = { status, retryAfter, body: Buffer.concat(chunks).toString("utf8"), durationMs: elapsed() };
            // undici frees a socket for its next request one turn of the event loop after the
            // answer ended (so a receiver that closes despite keep-alive is noticed first), by
            // an immediate it queues once this call returns: answering after it lets the next
            // attempt find the socket free instead of opening another connection.
            queueMicrotask(() => setImmediate(settle, answer));
          },
          onResponseError(_controller, error) {
            // Before any answer, a kept socket the receiver dropped is the keep-alive race.
            settle(status === 0 && pool.isStaleSocket(error) ? new StaleSocket() : classify(error, elapsed()));
          },
        },
      );
    });
  }

  return {
    send(request: OutboundRequest): Promise<OutboundResponse> {
      const started = performance.now();
      const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
      const target = verdictOf(request.url);
      if ("refused" in target) return Promise.reject(new OutboundError("blocked", target.refused, 0));
      return exchange(target, request, request.timeoutMs, elapsed).catch((error: unknown) => {
        if (!(error instanceof StaleSocket)) throw error;
        // A reset of a kept socket before any answer is a race with the receiver's idle close:
        // once more, on a new connection, within what is left of the timeout.
        const left = request.timeoutMs - elapsed();
        if (left <= 0) throw new OutboundError("timeout", `No answer within ${request.timeoutMs} ms`, elapsed());
        return exchange(target, request, left, elapsed).catch((again: unknown) => {
          throw again instanceof StaleSocket ? new OutboundError("network", "ECONNRESET", elapsed()) : again;
        });
      });
    },
    close: pool.close,
  };
}

/** A request written on a kept socket that the receiver had closed meanwhile: sent again once on another socket. */
class StaleSocket extends Error {}

/** Why an exchange past its deadline is cut (never seen: the attempt has already failed as a timeout). */
const cut = new Error("deadline passed");

type Target = { origin: string; path: string };
type Verdict = Target | { refused: string };

/**
 * What a failed exchange is, by its error: a refused connection is `blocked`, anything else
 * `network`, named by the system's code (ECONNREFUSED) or undici's error name (SocketError),
 * never by text the receiver sent.
 */
function classify(error: unknown, durationMs: number): OutboundError {
  if (error instanceof OutboundError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === blockedHostCode) return new OutboundError("blocked", `The host ${message}`, durationMs);
  if (code === blockedConnectionCode) return new OutboundError("blocked", `The connection ${message}`, durationMs);
  if (code && !code.startsWith("UND_ERR")) return new OutboundError("network", code, durationMs);
  return new OutboundError("network", error instanceof Error ? error.name : "network error", durationMs);
}
