import { CaseKitError } from "../core/index.js";

/** The default largest body the host reads: 1 MiB (conventions, "Requests"). */
export const defaultBodyLimitBytes = 1024 * 1024;

/**
 * Reads a JSON request body, never more than `limitBytes` of it. In this order:
 *
 * - a declared Content-Length over the limit → 413 `payload_too_large`, before reading anything;
 * - a Content-Type that is not JSON (`application/json` or `application/*+json`, UTF-8) → 415;
 * - the body is counted while it streams in, so a missing, lying or chunked length cannot get
 *   more than the limit into memory → 413 as soon as it passes the limit;
 * - an empty body → 400 `validation_failed` (every endpoint with a body needs one);
 * - a non-empty body without any Content-Type → 415;
 * - bytes that are not UTF-8 or not JSON → 400 `invalid_json`.
 *
 * The parsed value goes to the core untouched: the core's schemas validate it. Over the limit, the
 * rest of the body is left unread (not cancelled: that would tear the connection down before the
 * 413 is written); the answer then closes the connection (see `leavesBodyUnread`).
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limitBytes) throw tooLarge(limitBytes);

  const contentType = request.headers.get("content-type");
  if (contentType !== null && !isJsonContentType(contentType)) throw unsupported();

  const bytes = await readLimited(request, limitBytes);
  if (bytes.byteLength === 0) throw new CaseKitError("validation_failed", "The request needs a JSON body", [{ path: "", message: "is empty" }]);
  if (contentType === null) throw unsupported();

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
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

/** Requests whose body was read to its end (WeakSet: nothing outlives its request). */
const readToEnd = new WeakSet<Request>();

/**
 * True when the request came with a body that nobody read to its end: answered early (401, 413,
 * a route without a body…). Such an answer must close the connection, or Node would read (and
 * throw away) the rest of a body that may never end before the next request could be parsed.
 */
export function leavesBodyUnread(request: Request): boolean {
  if (readToEnd.has(request)) return false;
  const length = request.headers.get("content-length");
  return request.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
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
        throw new CaseKitError("invalid_json", "The body could not be read to its end");
      });
      if (done) break;
      total += value.byteLength;
      if (total > limitBytes) throw tooLarge(limitBytes);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  readToEnd.add(request);
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

function unsupported(): CaseKitError {
  return new CaseKitError("unsupported_media_type", "Send the body as application/json (UTF-8)");
}
