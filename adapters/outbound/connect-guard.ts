import type { ClientRequestArgs } from "node:http";
import type { LookupFunction, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { checkConnectAddress } from "../../core/webhooks/ssrf.js";

/** Error codes of a connection the SSRF rule refused: by what DNS returned, or by the connected socket's address. */
export const blockedHostCode = "CASEKIT_BLOCKED_HOST";
export const blockedConnectionCode = "CASEKIT_BLOCKED_CONNECTION";

type Connect = (options: ClientRequestArgs) => Duplex | null | undefined;

/**
 * Wraps the creation of one connection with the two SSRF checks. Any `net.connect`-like function
 * fits (the webhook transport's connector, the syslog transport's `net.connect`/`tls.connect`): it must honour
 * the `lookup` option and return the socket before it connects.
 */
export function connectGuard(allowlist: WebhookAllowlist, resolve: LookupFunction) {
  return (options: ClientRequestArgs, connect: Connect): Duplex | null | undefined => {
    const host = String(options.host ?? options.hostname ?? "").replace(/^\[|\]$/g, "");
    const port = Number(options.port);
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
        if (error) return callback(error, "", 0);
        const list = (Array.isArray(addresses) ? addresses : [{ address: addresses as unknown as string, family: 4 }]) as { address: string; family: number }[];
        const refused = list.map((a) => checkConnectAddress(allowlist, hostname, a.address, port)).find((r) => r !== null);
        if (refused || list.length === 0) return callback(Object.assign(new Error(refused ?? "no address"), { code: blockedHostCode }), "", 0);
        if (lookupOptions.all) return callback(null, list as never);
        return callback(null, list[0]!.address, list[0]!.family);
      });
    };
    const socket = connect({ ...options, lookup }) as Socket | null | undefined;
    // First among the connect listeners: before the request (or a TLS hello) is written.
    socket?.prependOnceListener("connect", () => {
      const remote = socket.remoteAddress;
      const refused = remote ? checkConnectAddress(allowlist, host, remote, port) : "no remote address";
      if (refused) socket.destroy(Object.assign(new Error(refused), { code: blockedConnectionCode }));
    });
    return socket;
  };
}
