import type { IncomingMessage } from "node:http";
import { CaseKitError } from "../core/index.js";

/** The default largest body the host reads: 1 MiB (conventions, "Requests"). */
export const defaultBodyLimitBytes = 1024 * 1024;

/** Bodies read to their end, by request (WeakMap: nothing outlives its request). */
const buffered = new WeakMap<Request, Uint8Array>();

/**
 * The body limit, the first thing checked on every request the host answers (defineHostHandler),
 * whatever the route, the method or the credentials: a declared Content-Length over the limit is
 * 413 `payload_too_large` before anything is read; any other body is read to its end, counted
 * while it streams in (a missing, lying or chunked length cannot get more than the limit into
 * memory) and 413 as soon as it passes the limit. Over the limit, the rest of the body is left
 * unread (not cancelled: that would tear the connection down before the 413 is written) and the
 * answer closes the connection (see `leavesBodyUnread`). A body within the limit is kept for
 * `readJsonBody`.
 */
export async function bufferBody(request: Request, limitBytes: number): Promise<void> {
  const node = nodeRequestOf(request);
  const declared = node ? node.headers["content-length"] : request.headers.get("content-length");
  if (declared !== null && declared !== undefined && Number(declared) > limitBytes) throw tooLarge(limitBytes);
  if (buffered.has(request)) return;
  if (node) {
    // As srvx's own Request: GET and HEAD have no body to read.
    if (node.method === "GET" || node.method === "HEAD") return;
    buffered.set(request, await readNodeLimited(node, limitBytes));
    return;
  }
  if (request.body === null) return;
  // Read by a framework in front of casekit (Hono's c.req.json(), say) before it was handed over.
  if (request.bodyUsed) throw alreadyConsumed();
  buffered.set(request, await readLimited(request, limitBytes));
}

/**
 * Reads a JSON request body, never more than `limitBytes` of it (see `bufferBody`; a body the host
 * already read is taken from there). In this order:
 *
 * - a body over the limit → 413 `payload_too_large`;
 * - a Content-Type that is not JSON (`application/json` or `application/*+json`, UTF-8) → 415;
 * - an empty body → 400 `validation_failed` (every endpoint with a body needs one);
 * - a non-empty body without any Content-Type → 415;
 * - bytes that are not UTF-8 or not JSON → 400 `invalid_json`.
 *
 * The parsed value goes to the core untouched: the core's schemas validate it.
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  await bufferBody(request, limitBytes);
  const contentType = request.headers.get("content-type");
  if (contentType !== null && !isJsonContentType(contentType)) throw unsupported();

  const bytes = buffered.get(request) ?? new Uint8Array(0);
  if (bytes.byteLength === 0) throw new CaseKitError("validation_failed", "The request needs a JSON body", [{ path: "", message: "is empty" }]);
  if (contentType === null) throw unsupported();

  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new CaseKitError("invalid_json", "The body is not valid UTF-8");
  }
  if (text.trim() === "") throw new CaseKitError("validation_failed", "The request needs a JSON body", [{ path: "", message: "is empty" }]);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The parser's message may quote the body back; say only that it is not JSON.
    throw new CaseKitError("invalid_json", "The body is not valid JSON");
  }
}

/** `application/json` or any `application/<x>+json`, with no charset or a UTF-8 one. */
export function isJsonContentType(value: string): boolean {
  const [essence = "", ...parameters] = value.split(";").map((part) => part.trim().toLowerCase());
  if (essence !== "application/json" && !/^application\/[a-z0-9.!#$&^_-]+\+json$/.test(essence)) return false;
  const charset = parameters.find((p) => p.startsWith("charset="));
  return charset === undefined || /^charset="?utf-8"?$/.test(charset);
}

/**
 * True when the request came with a body that was not read to its end (over the limit, or a GET
 * with a body). Such an answer must close the connection, or Node would read (and throw away) the
 * rest of a body that may never end before the next request could be parsed.
 */
export function leavesBodyUnread(request: Request): boolean {
  if (buffered.has(request)) return false;
  const node = nodeRequestOf(request);
  if (node) return hasDeclaredBody(node);
  const length = request.headers.get("content-length");
  return request.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
}

/** Stateless between calls (no `stream` option), so one decoder serves every request. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The Node request behind an h3 request that came through srvx's Node adapter. */
function nodeRequestOf(request: Request): IncomingMessage | undefined {
  return (request as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
}

/**
 * The Node side of `readLimited`: the body from the IncomingMessage's own events, no web stream.
 * Over the limit it stops listening and pauses the request, leaving the rest unread (the answer
 * closes the connection); a body another reader already took, or a client gone mid-body, is
 * "could not be read to its end", as on the web side.
 */
function readNodeLimited(req: IncomingMessage, limitBytes: number): Promise<Uint8Array> {
  const raw = (req as { rawBody?: unknown }).rawBody;
  if (Buffer.isBuffer(raw)) {
    // A framework in front read the body already and kept it (srvx honours this too).
    return raw.byteLength > limitBytes ? Promise.reject(tooLarge(limitBytes)) : Promise.resolve(raw);
  }
  if (req.readableEnded) {
    // Read to its end by someone else: a body parser mounted in front of casekit (express.json()…).
    // A request that declared no body had nothing to take.
    return hasDeclaredBody(req) ? Promise.reject(alreadyConsumed()) : Promise.resolve(new Uint8Array(0));
  }
  if (req.destroyed) return Promise.reject(unreadable());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limitBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onError = () => {
      cleanup();
      reject(unreadable());
    };
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      reject(unreadable());
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
    req.resume();
  });
}

async function readLimited(request: Request, limitBytes: number): Promise<Uint8Array> {
  const stream = request.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(() => {
        throw unreadable();
      });
      if (done) break;
      total += value.byteLength;
      if (total > limitBytes) throw tooLarge(limitBytes);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(limitBytes: number): CaseKitError {
  return new CaseKitError("payload_too_large", `The body must not exceed ${limitBytes} bytes`);
}

function unreadable(): CaseKitError {
  return new CaseKitError("invalid_json", "The body could not be read to its end");
}

/**
 * The host's mistake, not the client's (500): its body parser took the body, so casekit cannot
 * read it. Said in the answer, since the person who sees it is the one who can fix it.
 */
function alreadyConsumed(): CaseKitError {
  return new CaseKitError(
    "body_already_consumed",
    "The request body was read before casekit could read it: mount casekit before any body parser (express.json() and the like), or keep the parser off casekit's prefix",
  );
}

function hasDeclaredBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length.trim() !== "0");
}

function unsupported(): CaseKitError {
  return new CaseKitError("unsupported_media_type", "Send the body as application/json (UTF-8)");
}
