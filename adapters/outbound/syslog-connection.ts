import { lookup as dnsLookup } from "node:dns";
import type { ClientRequestArgs } from "node:http";
import net from "node:net";
import type { LookupFunction, Socket } from "node:net";
import tls from "node:tls";
import type { SyslogTarget } from "../../core/audit-sinks/config.js";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { checkTargetHost } from "../../core/webhooks/ssrf.js";
import { blockedConnectionCode, blockedHostCode, connectGuard } from "./connect-guard.js";

export type { SyslogTarget };

export interface SyslogConnectOptions {
  allowlist: WebhookAllowlist;
  /** Name resolution; node's dns.lookup by default (tests substitute a rebinding resolver). */
  lookup?: LookupFunction;
  /** Connecting (and the TLS handshake) must finish within this. Default 10 s. */
  timeoutMs?: number;
}

/** Why a connection to the receiver failed: `blocked` by the SSRF rule, or the `network`. */
export class SyslogConnectError extends Error {
  constructor(
    readonly kind: "blocked" | "network" | "timeout",
    message: string,
  ) {
    super(message);
    this.name = "SyslogConnectError";
  }
}

/**
 * Opens a connection to a syslog receiver under the webhooks' SSRF rule, one rule for every way
 * data leaves: the host is checked first (a literal private address or local name is refused
 * unless allowed), then every address DNS returns before the socket connects, then the connected
 * socket's own address before anything (a TLS hello included) is written. TLS verifies the
 * receiver's certificate against `ca` or Node's roots; it cannot be turned off.
 */
export function connectSyslog(target: SyslogTarget, options: SyslogConnectOptions): Promise<Socket> {
  const refused = checkTargetHost(target.host, target.port, options.allowlist);
  if (refused) return Promise.reject(new SyslogConnectError("blocked", `The syslog host ${refused}`));
  const guard = connectGuard(options.allowlist, options.lookup ?? (dnsLookup as LookupFunction));
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise<Socket>((resolve, reject) => {
    const base = { host: target.host, port: target.port };
    const open =
      target.protocol === "tls"
        ? (guarded: ClientRequestArgs) =>
            tls.connect({
              ...(guarded as tls.ConnectionOptions),
              ...(target.ca ? { ca: target.ca } : {}),
              ...(target.cert ? { cert: target.cert } : {}),
              ...(target.key ? { key: target.key } : {}),
              // SNI carries names only (RFC 6066); an address is still verified against the certificate.
              ...(net.isIP(target.servername ?? target.host) ? {} : { servername: target.servername ?? target.host }),
            })
        : (guarded: ClientRequestArgs) => net.connect(guarded as net.NetConnectOpts);
    const socket = guard(base, open) as Socket;
    const ready = target.protocol === "tls" ? "secureConnect" : "connect";
    const timer = setTimeout(() => socket.destroy(new SyslogConnectError("timeout", `No connection within ${timeoutMs} ms`)), timeoutMs);
    const onError = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error instanceof SyslogConnectError) return reject(error);
      if (error.code === blockedHostCode) return reject(new SyslogConnectError("blocked", `The syslog host ${error.message}`));
      if (error.code === blockedConnectionCode) return reject(new SyslogConnectError("blocked", `The syslog connection ${error.message}`));
      reject(new SyslogConnectError("network", error.code ?? error.message));
    };
    socket.once("error", onError);
    socket.once(ready, () => {
      clearTimeout(timer);
      socket.off("error", onError);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      resolve(socket);
    });
  });
}
