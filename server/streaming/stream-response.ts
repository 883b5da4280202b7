import { Readable, pipeline } from "node:stream";
import { constants, createGzip } from "node:zlib";
import { FastResponse } from "srvx";
import type { AnswerHeaders } from "../answer.js";
import { writesToNode } from "../answer.js";
import { IteratorReadable } from "./iterator-readable.js";
import type { StreamBody } from "./stream-body.js";

export interface StreamContext {
  request: { method: string; headers: Headers; runtime?: { node?: unknown } | undefined };
  url: URL;
  headers: AnswerHeaders;
  /** The host's shutdown signal, if it has one. */
  shutdown: AbortSignal | undefined;
  /** Told an error the body threw after its first chunk (the connection is cut). */
  onError(error: unknown): void;
}

const neverAborted = new AbortController().signal;

/**
 * Opens a streamed body and answers it. Resolves once the first chunk is there (a failure
 * before it rejects, and the host answers problem details); the rest flows through a Readable
 * that pulls from the body at the pace the client reads. Gzip (level 6, the zlib default) when
 * the body allows it and the client accepts it.
 */
export async function streamResponse(body: StreamBody, context: StreamContext): Promise<Response> {
  const controller = new AbortController();
  const iterator = body.open({ headers: context.request.headers, url: context.url, signal: controller.signal, shutdown: context.shutdown ?? neverAborted });
  let first: IteratorResult<string>;
  try {
    first = await iterator.next();
  } catch (error) {
    controller.abort();
    throw error;
  }
  const gzip = body.compressible && acceptsGzip(context.request.headers.get("accept-encoding"));
  // Set only once the body is sure to be sent: a problem answered instead must not carry them.
  const setBodyHeaders = () => {
    context.headers.set("content-type", body.contentType);
    if (body.compressible) context.headers.set("vary", "accept-encoding");
    if (gzip) context.headers.set("content-encoding", "gzip");
    // Tells proxies (nginx) not to hold the stream back.
    context.headers.set("x-accel-buffering", "no");
  };
  if (context.request.method === "HEAD") {
    // The status and headers GET would answer (the first chunk decided them), then the body is let go.
    controller.abort();
    await iterator.return?.();
    setBodyHeaders();
    return new Response(null, { status: 200, headers: context.headers.pairs() });
  }
  // An error before the answer is returned is answered as a problem by the host; only later ones are reported here.
  let answered = false;
  const readable = new IteratorReadable(first, iterator, controller, (error) => answered && context.onError(error));
  let out: Readable = readable;
  if (gzip) {
    // pipeline destroys both when either fails or the response closes early.
    out = pipeline(readable, createGzip({ level: constants.Z_DEFAULT_COMPRESSION }), () => {});
    // The compressor works off the thread pool: until it has output, nothing can be sent, and a
    // source failing meanwhile is still a failure before the first byte (a problem answer).
    await firstOutput(out);
  }
  setBodyHeaders();
  const init = { status: 200, headers: context.headers.pairs() };
  answered = true;
  // On Node, srvx pipes a Readable into the ServerResponse with stream.pipeline: backpressure
  // and early close both propagate. Elsewhere, a web stream over the same Readable.
  return writesToNode(context.request) ? new FastResponse(out as never, init) : new Response(Readable.toWeb(out) as ReadableStream, init);
}

/**
 * Whether `Accept-Encoding` admits gzip (RFC 9110 §12.5.3): listed with a q above 0, or not
 * listed while `*` is, with a q above 0.
 */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const weight = Number.isFinite(q) ? q : 0;
    if (name === "gzip" || name === "x-gzip") gzip = weight;
    else if (name === "*") any = weight;
  }
  return gzip !== undefined ? gzip > 0 : (any ?? 0) > 0;
}

/** Resolves once `stream` has something to read (or has ended); rejects if it fails first. */
function firstOutput(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      stream.off("readable", onReadable);
      stream.off("error", onError);
      if (error) reject(error);
      else resolve();
    };
    const onReadable = () => settle();
    const onError = (error: Error) => settle(error);
    stream.once("readable", onReadable);
    stream.once("error", onError);
  });
}
