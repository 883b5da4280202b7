/**
 * The outbound HTTP port: how webhook deliveries leave the process. The core decides what to
 * send and when; the transport sends exactly one attempt, never follows a redirect, and refuses
 * (error class `blocked`) any connection whose actual address the SSRF policy forbids.
 */
export interface OutboundRequest {
  url: string;
  method: "POST" | "PUT" | "PATCH";
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface OutboundResponse {
  status: number;
  /** `Retry-After`, as sent (seconds or an HTTP date), or null. */
  retryAfter: string | null;
  /** At most the first few KiB of the body, as text. */
  body: string;
  durationMs: number;
}

export type OutboundErrorClass = "timeout" | "network" | "blocked";

/** A failed attempt that produced no HTTP response. `message` never holds secrets or headers. */
export class OutboundError extends Error {
  readonly errorClass: OutboundErrorClass;
  readonly durationMs: number;

  constructor(errorClass: OutboundErrorClass, message: string, durationMs: number) {
    super(message);
    this.name = "OutboundError";
    this.errorClass = errorClass;
    this.durationMs = durationMs;
  }
}

export interface OutboundTransport {
  /** One attempt. Resolves with any HTTP response (2xx or not, redirects included); rejects with OutboundError otherwise. */
  send(request: OutboundRequest): Promise<OutboundResponse>;
}
