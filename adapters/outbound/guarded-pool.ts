import net from "node:net";
import type { LookupFunction, Socket } from "node:net";
import tls from "node:tls";
import type { ClientRequestArgs } from "node:http";
import { Agent } from "undici";
import type { buildConnector } from "undici";
import { rememberBounded } from "../../core/bounded-map.js";
import type { WebhookAllowlist } from "../../core/webhooks/ssrf.js";
import { connectGuard } from "./connect-guard.js";

export interface GuardedPoolOptions {
  allowlist: WebhookAllowlist;
  lookup: LookupFunction;
  /** Sockets open to one target (scheme, host and port) at once; more requests queue. */
  socketsPerTarget: number;
  /** Sockets open in all; a new connection past it waits until one closes. */
  sockets: number;
  /** A kept socket idle this long is closed (shorter when the receiver's Keep-Alive asks). */
  idleTimeoutMs: number;
}

export interface GuardedPool {
  /** The undici dispatcher requests are sent through. */
  agent: Agent;
  /**
   * Whether a failed request's error is a kept socket dropped before it answered: the receiver
   * closed a socket that had already carried an answer (the keep-alive race with its own idle
   * close), so sending once more on a new connection is safe.
   */
  isStaleSocket(error: unknown): boolean;
  /** Closes every socket, kept or in use; connections waiting for a free slot fail. */
  close(): void;
}

/** A connection slower than this to open fails (an attempt's own deadline is at most 30 s). */
const connectTimeoutMs = 10_000;
/** TLS sessions kept for resumption, by server name. */
const keptSessions = 100;

/**
 * The webhook transport's connections: one undici pool per target (scheme, host and port), its
 * sockets kept alive and reused, bounded per target and in all. The SSRF rule is applied to every
 * NEW connection in the connector: every address DNS returns is checked before the socket
 * connects (a name rebound to 127.0.0.1 never connects) and the connected socket's own address
 * before anything is written on it (connect-guard.ts). A kept socket was checked when it
 * connected and stays bound to that address, so reusing it needs no new check.
 *
 * undici rather than node:http: on loopback it costs about 55 µs of CPU per request where
 * node:http's client costs about 145 (measured, 2 cores), and the dispatcher's event loop is
 * what bounds deliveries per second.
 */
export function createGuardedPool(options: GuardedPoolOptions): GuardedPool {
  const guard = connectGuard(options.allowlist, options.lookup);
  const sessions = new Map<string, Buffer>();
  /** Errors of sockets that had read an answer before they failed (kept sockets). */
  const staleErrors = new WeakSet<object>();
  let open = 0;
  let closed = false;
  const waiting: (() => void)[] = [];

  const connect: buildConnector.connector = (target, callback) => {
    if (closed) return callback(new Error("the webhook transport is closed"), null);
    if (open >= options.sockets) {
      waiting.push(() => connect(target, callback));
      return;
    }
    open += 1;
    const secure = target.protocol === "https:";
    const host = target.hostname.replace(/^\[|\]$/g, "");
    const port = Number(target.port) || (secure ? 443 : 80);
    // SNI carries names only (RFC 6066); an address is still verified against the certificate.
    const servername = net.isIP(host) ? undefined : host;
    let socket: Socket;
    try {
      socket = guard({ host, port }, (guarded: ClientRequestArgs) =>
        secure
          ? tls.connect({ ...(guarded as tls.ConnectionOptions), ALPNProtocols: ["http/1.1"], ...(servername ? { servername, session: sessions.get(servername) } : {}) })
          : net.connect(guarded as net.NetConnectOpts),
      ) as Socket;
    } catch (error) {
      // Options node refused outright: no socket was made, so none is counted.
      open -= 1;
      return callback(error as Error, null);
    }
    if (secure && servername) socket.on("session", (session: Buffer) => rememberBounded(sessions, servername, session, keptSessions));
    socket.once("close", () => {
      open -= 1;
      waiting.shift()?.();
    });
    /** What the socket had read once connected (a TLS handshake's bytes): more since is an answer. */
    let readWhenConnected: number | null = null;
    // Before undici's own listener, so the error it hands the request is marked first. A reset
    // arrives as the socket's error, a close (FIN) as undici's SocketError destroying it: both pass here.
    socket.on("error", (error: object) => {
      if (readWhenConnected !== null && socket.bytesRead > readWhenConnected) staleErrors.add(error);
    });
    let answer: buildConnector.Callback | null = callback;
    const settle = (error: Error | null) => {
      clearTimeout(timer);
      const pending = answer;
      answer = null;
      if (!pending) return;
      if (error) pending(error, null);
      else pending(null, socket);
    };
    const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    socket.once("error", settle);
    socket.once(secure ? "secureConnect" : "connect", () => {
      // The guard's own listener runs first and destroys a socket whose address it refuses: its error follows.
      if (socket.destroyed) return;
      readWhenConnected = socket.bytesRead;
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 60_000);
      settle(null);
    });
  };

  const agent = new Agent({
    connect,
    connections: options.socketsPerTarget,
    keepAliveTimeout: options.idleTimeoutMs,
    keepAliveMaxTimeout: options.idleTimeoutMs,
  });

  return {
    agent,
    isStaleSocket: (error) => typeof error === "object" && error !== null && staleErrors.has(error),
    close() {
      closed = true;
      for (const next of waiting.splice(0)) next();
      void agent.destroy().catch(() => {});
    },
  };
}
