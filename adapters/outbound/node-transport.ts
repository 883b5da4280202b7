import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import type { OutboundRequest, OutboundResponse, OutboundTransport } from "../../core/ports/outbound.js";
import { OutboundError } from "../../core/ports/outbound.js";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { checkConnectAddress, checkWebhookUrl } from "../../core/webhooks/ssrf.js";
import { blockedConnectionCode, blockedHostCode, createGuardedAgents } from "./guarded-agents.js";

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

/** A request written on a kept socket that the receiver had closed meanwhile: sent again once on another socket. */
class StaleSocket extends Error {}

/**
 * The node:http(s) transport. SSRF defence in three places: the URL (scheme, credentials,
 * literal addresses), and for every new connection every address DNS returns before the socket
 * connects (so a name that resolves to 127.0.0.1 never connects: DNS rebinding fails) and the
 * socket's remote address once connected (adapters/outbound/guarded-agents.ts). Sockets are kept
 * alive and reused per target, bounded; redirects are returned, not followed.
 */
export function createNodeTransport(options: NodeTransportOptions): NodeTransport {
  const maxBytes = options.maxResponseBytes ?? 4096;
  const agents = createGuardedAgents({
    allowlist: options.allowlist,
    lookup: options.lookup ?? (dnsLookup as LookupFunction),
    socketsPerTarget: options.socketsPerTarget ?? transportDefaults.socketsPerTarget,
    sockets: options.sockets ?? transportDefaults.sockets,
    idleTimeoutMs: options.idleTimeoutMs ?? transportDefaults.idleTimeoutMs,
  });

  /** One exchange on one socket, answered within `timeoutMs` of now. */
  function exchange(url: URL, request: OutboundRequest, timeoutMs: number, elapsed: () => number): Promise<OutboundResponse> {
    return new Promise<OutboundResponse>((done, fail) => {
      const secure = url.protocol === "https:";
      const req = (secure ? https : http).request(url, {
        method: request.method,
        headers: { ...request.headers, "content-length": Buffer.byteLength(request.body) },
        agent: secure ? agents.https : agents.http,
      });
      let settled = false;
      let answered = false;
      const failWith = (error: Error) => {
        clearTimeout(deadline);
        if (settled) return;
        settled = true;
        // Never returned to the pool: a socket cut mid-exchange is closed.
        req.destroy();
        fail(error);
      };
      const deadline = setTimeout(() => failWith(new OutboundError("timeout", `No answer within ${request.timeoutMs} ms`, elapsed())), timeoutMs);
      req.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code === blockedHostCode) failWith(new OutboundError("blocked", `The host ${error.message}`, elapsed()));
        else if (error.code === blockedConnectionCode) failWith(new OutboundError("blocked", `The connection ${error.message}`, elapsed()));
        else if (req.reusedSocket && !answered && error.code === "ECONNRESET") failWith(new StaleSocket());
        else failWith(new OutboundError("network", error.code ?? "network error", elapsed()));
      });
      req.on("response", (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        let kept = 0;
        // Read to the end even past what is kept: only a finished response frees its socket for reuse.
        response.on("data", (chunk: Buffer) => {
          if (kept < maxBytes) {
            chunks.push(chunk.subarray(0, maxBytes - kept));
            kept += Math.min(chunk.length, maxBytes - kept);
          }
        });
        response.on("end", () => {
          clearTimeout(deadline);
          if (settled) return;
          settled = true;
          const retryAfter = response.headers["retry-after"];
          done({
            status: response.statusCode ?? 0,
            retryAfter: typeof retryAfter === "string" ? retryAfter : null,
            body: Buffer.concat(chunks).toString("utf8"),
            durationMs: elapsed(),
          });
        });
        response.on("error", () => failWith(new OutboundError("network", "response aborted", elapsed())));
      });
      req.end(request.body);
    });
  }

  return {
    send(request: OutboundRequest): Promise<OutboundResponse> {
      const started = performance.now();
      const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
      const verdict = checkWebhookUrl(request.url, options.allowlist);
      if (!verdict.ok) return Promise.reject(new OutboundError("blocked", `The URL ${verdict.reason}`, 0));
      const { url, port } = verdict;
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host)) {
        const refused = checkConnectAddress(options.allowlist, host, host, port);
        if (refused) return Promise.reject(new OutboundError("blocked", `The URL ${refused}`, 0));
      }
      return exchange(url, request, request.timeoutMs, elapsed).catch((error: unknown) => {
        if (!(error instanceof StaleSocket)) throw error;
        // Node's advice for keep-alive: a reset of a reused socket before any answer is a race
        // with the receiver's idle close; once more, within what is left of the timeout.
        const left = request.timeoutMs - elapsed();
        if (left <= 0) throw new OutboundError("timeout", `No answer within ${request.timeoutMs} ms`, elapsed());
        return exchange(url, request, left, elapsed).catch((again: unknown) => {
          throw again instanceof StaleSocket ? new OutboundError("network", "ECONNRESET", elapsed()) : again;
        });
      });
    },
    close: agents.close,
  };
}
