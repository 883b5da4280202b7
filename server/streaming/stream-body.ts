/**
 * A response body written as it is produced (an NDJSON export, a Server-Sent Events stream). A
 * route answers `streamed(body)` (route.ts); the host (handle.ts, stream-response.ts) pulls the
 * chunks only as fast as the client reads them, so nothing is ever buffered whole.
 */
export interface StreamBody {
  /** The Content-Type of the answer. */
  contentType: string;
  /**
   * Whether to gzip when the client sends `Accept-Encoding: gzip`. Not for event streams: an
   * event must reach the client when it happens, not when a compressor's block fills.
   */
  compressible: boolean;
  /**
   * Starts the body for one request. The first chunk is awaited before the status line is sent:
   * anything thrown until then (bad input, a database error) is answered as problem details like
   * any other failure; a failure later cuts the connection (the chunked body ends without its
   * terminator, so no client takes a truncated body for a whole one).
   */
  open(request: StreamRequest): AsyncIterator<string>;
}

export interface StreamRequest {
  headers: Headers;
  url: URL;
  /** Aborted when the client went away: stop reading sources. */
  signal: AbortSignal;
  /**
   * Aborted when the host shuts down (CaseKitAppOptions.shutdownSignal). A body that never ends
   * on its own (an event stream) ends cleanly then, so the drain need not cut it; a finite body
   * (an export) ignores it and finishes within the drain deadline.
   */
  shutdown: AbortSignal;
}
