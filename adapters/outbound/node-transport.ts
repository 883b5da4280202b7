import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction, Socket } from "node:net";
import { isIP } from "node:net";
import type { OutboundRequest, OutboundResponse, OutboundTransport } from "../../core/ports/outbound.js";
import { OutboundError } from "../../core/ports/outbound.js";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { checkConnectAddress, checkWebhookUrl } from "../../core/webhooks/ssrf.js";

export interface NodeTransportOptions {
  allowlist: WebhookAllowlist;
  /** How much of a response body is kept for the delivery history. Default 4 KiB. */
  maxResponseBytes?: number;
  /** Name resolution; node's dns.lookup by default (tests substitute a rebinding resolver). */
  lookup?: LookupFunction;
}

/**
 * The node:http(s) transport. SSRF defence in three places: the URL (scheme, credentials,
 * literal addresses), every address DNS returns before the socket connects (so a name that
 * resolves to 127.0.0.1 never connects: DNS rebinding fails), and the socket's remote address
 * once connected. No agent keeps sockets across attempts, and redirects are returned, not followed.
 */
export function createNodeTransport(options: NodeTransportOptions): OutboundTransport {
  const maxBytes = options.maxResponseBytes ?? 4096;
  const resolve = options.lookup ?? (dnsLookup as LookupFunction);

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

      const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
        resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
          if (error) return callback(error, "", 0);
          const list = (Array.isArray(addresses) ? addresses : [{ address: addresses as unknown as string, family: 4 }]) as { address: string; family: number }[];
          const refused = list.map((a) => checkConnectAddress(options.allowlist, hostname, a.address, port)).find((r) => r !== null);
          if (refused || list.length === 0) return callback(Object.assign(new Error(refused ?? "no address"), { code: "CASEKIT_BLOCKED" }), "", 0);
          if (lookupOptions.all) return callback(null, list as never);
          return callback(null, list[0]!.address, list[0]!.family);
        });
      };

      return new Promise<OutboundResponse>((done, fail) => {
        const client = url.protocol === "https:" ? https : http;
        const req = client.request(url, {
          method: request.method,
          headers: { ...request.headers, "content-length": Buffer.byteLength(request.body) },
          agent: false,
          lookup: guardedLookup,
          timeout: request.timeoutMs,
        });
        let settled = false;
        const failWith = (error: OutboundError) => {
          clearTimeout(deadline);
          if (settled) return;
          settled = true;
          req.destroy();
          fail(error);
        };
        const deadline = setTimeout(() => failWith(new OutboundError("timeout", `No answer within ${request.timeoutMs} ms`, elapsed())), request.timeoutMs);
        req.on("socket", (socket: Socket) => {
          socket.on("connect", () => {
            const remote = socket.remoteAddress;
            const refused = remote ? checkConnectAddress(options.allowlist, host, remote, port) : "no remote address";
            if (refused) failWith(new OutboundError("blocked", `The connection ${refused}`, elapsed()));
          });
        });
        req.on("timeout", () => failWith(new OutboundError("timeout", `No answer within ${request.timeoutMs} ms`, elapsed())));
        req.on("error", (error: NodeJS.ErrnoException) => {
          if (error.code === "CASEKIT_BLOCKED") failWith(new OutboundError("blocked", `The host ${error.message}`, elapsed()));
          else failWith(new OutboundError("network", error.code ?? "network error", elapsed()));
        });
        req.on("response", (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
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
    },
  };
}
