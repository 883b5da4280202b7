import http from "node:http";
import https from "node:https";
import type { ClientRequestArgs } from "node:http";
import type { LookupFunction, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { checkConnectAddress } from "../../core/webhooks/ssrf.js";

/** Error codes of a connection the SSRF rule refused: by what DNS returned, or by the connected socket's address. */
export const blockedHostCode = "CASEKIT_BLOCKED_HOST";
export const blockedConnectionCode = "CASEKIT_BLOCKED_CONNECTION";

export interface GuardedAgentOptions {
  allowlist: WebhookAllowlist;
  lookup: LookupFunction;
  /** Sockets open to one target (scheme, host and port) at once; more requests queue. */
  socketsPerTarget: number;
  /** Sockets open in all. */
  sockets: number;
  /** A kept socket idle this long is closed (shorter when the receiver's Keep-Alive asks). */
  idleTimeoutMs: number;
}

export interface GuardedAgents {
  http: http.Agent;
  https: https.Agent;
  /** Closes every socket, kept or in use. */
  close(): void;
}

/**
 * The keep-alive agents of the webhook transport. Node's agent keeps one pool of sockets per
 * target (host, port and TLS options), so sockets are reused per target and bounded per target
 * and in all. The SSRF rule is applied to every NEW connection, in `createConnection`: every
 * address DNS returns is checked before the socket connects (a name rebound to 127.0.0.1 never
 * connects), and the connected socket's own address before anything is written on it. A kept
 * socket was checked when it connected and stays bound to that address, so reusing it needs no
 * new check.
 */
export function createGuardedAgents(options: GuardedAgentOptions): GuardedAgents {
  const guard = connectGuard(options.allowlist, options.lookup);
  const agentOptions: http.AgentOptions = {
    keepAlive: true,
    maxSockets: options.socketsPerTarget,
    maxFreeSockets: options.socketsPerTarget,
    maxTotalSockets: options.sockets,
    // The most recently used socket first, so the surplus of a burst goes idle and is closed.
    scheduling: "lifo",
    timeout: options.idleTimeoutMs,
  };

  class GuardedHttpAgent extends http.Agent {
    override createConnection(connect: ClientRequestArgs, callback?: (error: Error | null, socket: Duplex) => void): Duplex | null | undefined {
      return guard(connect, (guarded) => super.createConnection(guarded, callback));
    }
  }
  class GuardedHttpsAgent extends https.Agent {
    override createConnection(connect: ClientRequestArgs, callback?: (error: Error | null, socket: Duplex) => void): Duplex | null | undefined {
      return guard(connect, (guarded) => super.createConnection(guarded, callback));
    }
  }

  const agents = { http: new GuardedHttpAgent(agentOptions), https: new GuardedHttpsAgent(agentOptions) };
  return {
    ...agents,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

type Connect = (options: ClientRequestArgs) => Duplex | null | undefined;

/**
 * Wraps the creation of one connection with the two SSRF checks. Any `net.connect`-like function
 * fits (http(s) agents here, the syslog transport's `net.connect`/`tls.connect`): it must honour
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
