import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

/**
 * A webhook receiver on loopback: records every request and answers what `answer` says. Counts
 * connections, so a test can prove a refused send never connected.
 */
export async function startReceiver(answer: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 200 })) {
  const received: ReceivedRequest[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: ReceivedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(request);
      const reply = answer(request, received.length - 1);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body ?? "");
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  server.on("connection", () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    received,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
