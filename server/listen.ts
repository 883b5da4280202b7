import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { toNodeHandler } from "h3";
import type { H3 } from "h3";
import type { ErrorCode } from "../core/index.js";
import { problemOf } from "./problem.js";

/**
 * The largest request head (request line and headers) the host reads: 256 KiB. Larger is answered
 * 431 `headers_too_large` as problem+json. It is sized so that every list query at its documented
 * maxima (each repeated filter's count × its longest value, percent-encoded) fits with room left
 * for ordinary headers (`test/server/edge-query-head.test.ts` checks every list route).
 */
export const maxRequestHeadBytes = 256 * 1024;

/** Room the query-size rule leaves in the head for the method, path and every other header. */
export const headAllowanceBytes = 16 * 1024;

/** How long a shutdown waits for requests in flight before it closes their connections. */
export const defaultShutdownTimeoutMs = 10_000;

export interface ListenOptions {
  port: number;
  host: string;
  /** A fresh request id (`req_…`) for answers given before the app sees the request. */
  requestId: () => string;
  /** Defaults to `maxRequestHeadBytes`. */
  maxHeaderSize?: number;
  /** Told about every request Node refused before the app saw it (a 431, a malformed request…). */
  onClientError?: (line: { requestId: string; status: number; code: ErrorCode; nodeCode: string | undefined }) => void;
}

export interface ListeningServer {
  server: Server;
  /** `http://<host>:<port>/` as bound (the real port when 0 was asked for). */
  url: string;
  port: number;
  /**
   * Stops accepting connections, lets requests in flight finish for at most `timeoutMs`, then
   * closes whatever connections are left. Resolves with how many were cut at the deadline.
   */
  close(timeoutMs?: number): Promise<{ forced: number }>;
}

/**
 * Serves the app on `node:http`, the whole host edge in one place:
 *
 * - the address is bound as given or not at all: a busy port, an unknown host or an address the
 *   machine does not have rejects with a message that says so (never a silent move to another port);
 * - requests Node refuses before the app sees them (a head over `maxHeaderSize`, malformed HTTP, a
 *   client too slow to send its head) get problem+json with an `x-request-id` instead of Node's bare
 *   answer, and no socket error can reach the process as an uncaught exception;
 * - `close` drains: in-flight requests finish, idle keep-alive connections close at once, and
 *   whatever remains at the deadline is cut.
 */
export async function listenHttp(app: H3, options: ListenOptions): Promise<ListeningServer> {
  const handler = toNodeHandler(app);
  const server = createServer({ maxHeaderSize: options.maxHeaderSize ?? maxRequestHeadBytes }, (req, res) => {
    void handler(req, res);
  });
  const inFlight = new Set<ServerResponse>();
  server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
  });
  // Node routes every socket and parser error of a connection here (and keeps a no-op error
  // listener on the socket), so none of them can surface as an uncaught exception.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket, options));

  await bind(server, options.port, options.host);
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;

  let closing: Promise<{ forced: number }> | undefined;
  return {
    server,
    port,
    url: `http://${shownHost}:${port}/`,
    close(timeoutMs = defaultShutdownTimeoutMs) {
      closing ??= drain(server, inFlight, timeoutMs);
      return closing;
    },
  };
}

function bind(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      reject(new Error(bindFailure(error, port, host), { cause: error }));
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen({ port, host, exclusive: true });
  });
}

/** Why the address could not be bound, in words an operator acts on. */
function bindFailure(error: NodeJS.ErrnoException, port: number, host: string): string {
  const where = `${host}:${port}`;
  switch (error.code) {
    case "EADDRINUSE":
      return `cannot listen on ${where}: the port is already in use (stop the other process or choose another --port)`;
    case "EACCES":
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges; choose another --port)`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${where}: this machine has no such address (check --host)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_FAIL":
      return `cannot listen on ${where}: the host name does not resolve (check --host)`;
    default:
      return `cannot listen on ${where}: ${error.message}`;
  }
}

/** Node's refusal codes, as the problem the API answers instead. */
function refusalOf(error: NodeJS.ErrnoException): { code: ErrorCode; detail: string; status: number } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        code: "headers_too_large",
        detail: `The request line and headers must not exceed ${maxRequestHeadBytes} bytes; send fewer or shorter query values`,
        status: 431,
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "HPE_HEADERS_TIMEOUT":
      return { code: "request_timeout", detail: "The request did not arrive in time", status: 408 };
    default:
      return { code: "malformed_request", detail: "The request is not valid HTTP/1.1", status: 400 };
  }
}

/**
 * Node emits `clientError` for a request it will not hand to the app. Without a listener it
 * writes a bare status line; with one, the listener owns the socket and must end it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket, options: ListenOptions): void {
  // A peer that reset, or hung up mid-request (an aborted upload), cannot read an answer.
  if (error.code === "ECONNRESET" || error.code === "HPE_INVALID_EOF_STATE" || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal = refusalOf(error);
  const requestId = options.requestId();
  const body = JSON.stringify(problemOf(refusal.code, refusal.detail));
  const head = [
    `HTTP/1.1 ${refusal.status} ${statusTexts[refusal.status] ?? ""}`,
    "content-type: application/problem+json",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    "cache-control: no-store",
    "x-content-type-options: nosniff",
    "connection: close",
  ].join("\r\n");
  socket.end(`${head}\r\n\r\n${body}`);
  try {
    options.onClientError?.({ requestId, status: refusal.status, code: refusal.code, nodeCode: error.code });
  } catch {
    // A failing logger must not affect the answer.
  }
}

const statusTexts: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

async function drain(server: Server, inFlight: Set<ServerResponse>, timeoutMs: number): Promise<{ forced: number }> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // server.close() closes idle keep-alive connections; one that finishes its request later must
  // not be kept alive for the next one either.
  for (const res of inFlight) res.shouldKeepAlive = false;
  server.closeIdleConnections();
  const sweeper = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"deadline">((resolve) => (timer = setTimeout(() => resolve("deadline"), timeoutMs)));
  try {
    const outcome = await Promise.race([closed.then(() => "closed" as const), deadline]);
    if (outcome === "closed") return { forced: 0 };
    const forced = inFlight.size;
    server.closeAllConnections();
    await closed;
    return { forced };
  } finally {
    clearInterval(sweeper);
    clearTimeout(timer);
  }
}
