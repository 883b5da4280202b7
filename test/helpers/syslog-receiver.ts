import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";

/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl for this test run. */
export function selfSignedCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "casekit-syslog-cert-"));
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
    ], { stdio: "ignore" });
    return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Splits a byte stream into RFC 6587 octet-counted frames. Throws on a frame that does not start
 * with a length, so a framing bug fails the test instead of merging messages.
 */
export function createFrameReader(onFrame: (message: string) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const space = pending.indexOf(0x20);
      if (space === -1) return;
      const lengthText = pending.subarray(0, space).toString("ascii");
      if (!/^[1-9]\d*$/.test(lengthText)) throw new Error(`not an octet-counted frame: ${JSON.stringify(pending.subarray(0, 40).toString())}`);
      const length = Number(lengthText);
      if (pending.length < space + 1 + length) return;
      onFrame(pending.subarray(space + 1, space + 1 + length).toString("utf8"));
      pending = pending.subarray(space + 1 + length);
    }
  };
}

export interface SyslogReceiver {
  port: number;
  messages: string[];
  connections: number;
  /** Closes the listener and every connection, once what they sent has been read. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/** A syslog receiver on loopback over TCP, or TLS with `tlsOptions`; keeps every message it reads. */
export async function startSyslogReceiver(tlsOptions?: { cert: string; key: string }): Promise<SyslogReceiver> {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const receiver: SyslogReceiver = {
    get port() {
      return port;
    },
    messages,
    connections: 0,
    async start() {
      const onSocket = (socket: Socket) => {
        receiver.connections++;
        sockets.add(socket);
        const read = createFrameReader((message) => messages.push(message));
        socket.on("data", read);
        socket.on("error", () => {});
        socket.on("close", () => sockets.delete(socket));
      };
      server = tlsOptions ? tls.createServer(tlsOptions, onSocket) : net.createServer(onSocket);
      await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server?.close(() => resolve()));
      // A clean close: the peer sees FIN after everything it wrote was read here.
      for (const socket of sockets) socket.end();
      await closed;
      server = null;
    },
  };
  await receiver.start();
  return receiver;
}

/** Resolves once `check` holds, polling; fails after `timeoutMs` with `what`. */
export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
