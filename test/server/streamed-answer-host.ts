import { H3 } from "h3";
import { CaseKitError } from "../../core/index.js";
import type { CaseKit } from "../../core/index.js";
import { defineHostHandler } from "../../server/handle.js";
import type { HostState } from "../../server/handle.js";
import { listenHttp } from "../../server/listen.js";
import type { ListeningServer } from "../../server/listen.js";
import { streamed } from "../../server/route.js";
import type { StreamBody } from "../../server/streaming/stream-body.js";

/**
 * A host whose one route answers whatever streamed body the test gives it, through the same
 * defineHostHandler every API route goes through; served on loopback and in-process.
 */
export interface StreamingHost {
  app: H3;
  listener: ListeningServer;
  /** The streaming route on the loopback listener. */
  url: string;
  /** Errors the host was told about (onUnexpectedError). */
  unexpected: unknown[];
  /** The host's shutdown signal's controller. */
  shutdown: AbortController;
  /** The body the route answers from now on. */
  serve(next: () => StreamBody): void;
}

export async function streamingHost(): Promise<StreamingHost> {
  let counter = 0;
  const unexpected: unknown[] = [];
  const shutdown = new AbortController();
  const kit = {
    deps: { ids: { next: (prefix: string) => `${prefix}_${String(++counter).padStart(26, "0")}` } },
    clock: { now: () => new Date() },
  } as unknown as CaseKit;
  const host: HostState = {
    kit,
    bodyLimitBytes: 1024,
    trustProxy: false,
    logger: undefined,
    onUnexpectedError: (error) => unexpected.push(error),
    metrics: undefined,
    tracer: undefined,
    openapi: {},
    accountOpenapi: {},
    secureCookies: false,
    authenticate: () => Promise.reject(new CaseKitError("missing_credentials")),
    basePathOf: () => "",
    shutdown: shutdown.signal,
  };
  let body: (() => StreamBody) | null = null;
  const app = new H3({ silent: true });
  const handler = defineHostHandler(host, async () => streamed(body!()), { route: "/stream" });
  app.get("/stream", handler);
  app.on("HEAD", "/stream", handler);
  const listener: ListeningServer = await listenHttp(app, { port: 0, host: "127.0.0.1", requestId: () => "req_x" });
  return {
    app,
    listener,
    url: `${listener.url}stream`,
    unexpected,
    shutdown,
    serve(next: () => StreamBody) {
      body = next;
    },
  };
}
