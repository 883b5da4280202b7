// HTTP/1.1 over a bare socket, for what fetch and node:http will not send: endless chunked bodies,
// uploads cut off halfway, request heads of any size.
import { connect } from "node:net";

export interface RawAnswer {
  /** 0 when the server answered nothing before the connection ended. */
  status: number;
  headers: Headers;
  /** The body, de-chunked; parsed as JSON when it is JSON. */
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  /** True when the server closed the connection (rather than the client). */
  closedByServer: boolean;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: [string, string][];
  /**
   * A chunked body: this many chunks of `chunkBytes` each, one every `everyMs`, sent until the
   * server answers or closes (so an endless body is one with a large `chunks`).
   */
  chunked?: { chunks: number; chunkBytes?: number; everyMs?: number };
  /** Cut the connection after this many chunks, without finishing the body (an aborted upload). */
  abortAfterChunks?: number;
}

/** Sends one request on a fresh connection and resolves when the connection ends (or idles 2 s). */
export function rawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    let serverClosed = false;
    const sending: { timer?: NodeJS.Timeout } = {};
    socket.on("data", (data: Buffer) => received.push(data));
    socket.on("end", () => (serverClosed = true));
    socket.on("error", () => undefined); // a reset while we still write is one way of being told
    // A server that keeps the connection open after answering: give up after 2 s of silence.
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on("close", () => {
      clearInterval(sending.timer);
      try {
        resolve({ ...parse(Buffer.concat(received).toString("latin1")), closedByServer: serverClosed });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    const headers = [["Host", "127.0.0.1"], ...(request.headers ?? [])];
    if (request.chunked) headers.push(["Transfer-Encoding", "chunked"]);
    socket.write(`${request.method} ${request.path} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}`).join("\r\n")}\r\n\r\n`);
    if (!request.chunked) {
      if (request.abortAfterChunks === 0) socket.destroy();
      return;
    }
    const { chunks, chunkBytes = 16 * 1024, everyMs = 2 } = request.chunked;
    const chunk = `${chunkBytes.toString(16)}\r\n${"x".repeat(chunkBytes)}\r\n`;
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable || received.length > 0) return clearInterval(timer);
      if (request.abortAfterChunks !== undefined && sent >= request.abortAfterChunks) {
        clearInterval(timer);
        socket.destroy();
        return;
      }
      if (sent >= chunks) {
        clearInterval(timer);
        socket.write("0\r\n\r\n");
        return;
      }
      socket.write(chunk);
      sent += 1;
    }, everyMs);
    sending.timer = timer;
  });
}

function parse(raw: string): Omit<RawAnswer, "closedByServer"> {
  const headers = new Headers();
  const end = raw.indexOf("\r\n\r\n");
  if (!raw.startsWith("HTTP/1.1 ") || end < 0) return { status: 0, headers, text: "", body: undefined };
  const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let rest = raw.slice(end + 4);
  let text = "";
  if (headers.get("transfer-encoding") === "chunked") {
    for (;;) {
      const lineEnd = rest.indexOf("\r\n");
      const size = parseInt(rest.slice(0, lineEnd), 16);
      if (!(size > 0)) break;
      text += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
  } else {
    text = rest.slice(0, Number(headers.get("content-length") ?? rest.length));
  }
  text = Buffer.from(text, "latin1").toString("utf8");
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(" ")[1]), headers, text, body };
}
