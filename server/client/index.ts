// casekit/client: a typed client for API v1, generated from the OpenAPI document (openapi-fetch).
import createClient from "openapi-fetch";
import type { Client } from "openapi-fetch";
import type { paths } from "./api-types.js";

export type { components, operations, paths } from "./api-types.js";
export type { Client } from "openapi-fetch";

/** The client's type: every path, method, parameter and body of API v1, checked by the compiler. */
export type CaseKitClient = Client<paths>;

export interface CaseKitClientOptions {
  /** The API root, e.g. `http://127.0.0.1:3000/api/v1` (with any prefix the API is mounted under). */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer <key>`. Leave it out when `headers` carry credentials. */
  apiKey?: string;
  /** Headers sent with every request (a host identity header, a tracing header…). */
  headers?: Record<string, string>;
  /** The fetch to use; `globalThis.fetch` by default (pass `app.fetch` to call an in-process app). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A client whose calls are typed by the document: `client.POST("/cases", { body })` answers
 * `{ data }` (the typed 2xx body) or `{ error }` (the typed problem body of a 4xx or 5xx).
 */
export function createCaseKitClient(options: CaseKitClientOptions): CaseKitClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers.Authorization = `Bearer ${options.apiKey}`;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
