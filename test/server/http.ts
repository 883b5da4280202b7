import http from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3";
import type { H3 } from "h3";
import { expect } from "vitest";

/** Headers as a list of pairs, so a test can send one header twice. */
export type HeaderList = [string, string][];

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body (undefined when the body is empty). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
}

export interface RequestSpec {
  headers?: HeaderList;
  /** A string is sent as is, anything else as JSON; Content-Type application/json unless given. */
  body?: unknown;
}

/**
 * One way to reach the app. The same tests run through both: the in-process `app.fetch`, and a
 * real server on 127.0.0.1 reached with `node:http` (the only way a repeated header reaches the
 * app as two raw header lines).
 */
export interface Transport {
  name: string;
  send(method: string, path: string, spec?: RequestSpec): Promise<Answer>;
  close(): Promise<void>;
}

export function inProcess(app: H3): Transport {
  return {
    name: "in-process fetch",
    async send(method, path, spec = {}) {
      const { headers, body } = prepare(spec);
      const request = new Request(`http://casekit.test${path}`, {
        method,
        headers: new Headers(headers),
        ...(body !== undefined ? { body } : {}),
      });
      const response = await app.fetch(request);
      if (response.headers.get("content-type")?.startsWith("text/event-stream")) return answer(response.status, response.headers, await openingOf(response));
      return answer(response.status, response.headers, await response.text());
    },
    async close() {},
  };
}

/** An event stream never ends: its opening (up to the first blank line) is read, then it is cancelled. */
export async function openingOf(response: Response): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text;
}

export async function listening(app: H3): Promise<Transport & { port: number }> {
  const server = http.createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name: "node:http on 127.0.0.1",
    port,
    send: (method, path, spec = {}) => sendRaw(port, method, path, spec),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A request through node:http; repeated header names are sent as separate header lines. */
export function sendRaw(port: number, method: string, path: string, spec: RequestSpec & { chunks?: string[] } = {}): Promise<Answer> {
  const { headers, body } = prepare(spec);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path, method, agent: false });
    // setHeader replaces by case-insensitive name, so group the same way; an array sends one line each.
    const grouped = new Map<string, { name: string; values: string[] }>();
    for (const [name, value] of headers) {
      const entry = grouped.get(name.toLowerCase()) ?? { name, values: [] };
      entry.values.push(value);
      grouped.set(name.toLowerCase(), entry);
    }
    for (const { name, values } of grouped.values()) request.setHeader(name, values.length === 1 ? values[0]! : values);
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        resolve(answer(response.statusCode ?? 0, out, Buffer.concat(chunks).toString("utf8")));
      });
    });
    request.on("error", reject);
    if (spec.chunks) {
      // Chunked transfer encoding: no Content-Length at all.
      for (const chunk of spec.chunks) request.write(chunk);
      request.end();
    } else {
      // node:http frames a body of GET/DELETE only with an explicit length (no chunked default).
      if (body !== undefined && !grouped.has("content-length")) request.setHeader("content-length", Buffer.byteLength(body));
      request.end(body);
    }
  });
}

/** A body goes out as JSON (Content-Type application/json) unless the test names another type. */
function prepare(spec: RequestSpec): { headers: HeaderList; body: string | undefined } {
  const headers = [...(spec.headers ?? [])];
  if (spec.body === undefined) return { headers, body: undefined };
  if (!headers.some(([name]) => name.toLowerCase() === "content-type")) headers.push(["Content-Type", "application/json"]);
  return { headers, body: typeof spec.body === "string" ? spec.body : JSON.stringify(spec.body) };
}

/** Every answer is checked for leaks: no stack trace, no stack frames, no SQL. */
function answer(status: number, headers: Headers, text: string): Answer {
  expect(text).not.toMatch(/"stack"|\n\s+at |\bat .+:\d+:\d+\)|SELECT |INSERT INTO|sqlite|node_modules/i);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status, headers, text, body };
}

export const bearer = (key: string): HeaderList => [["Authorization", `Bearer ${key}`]];

/** Both ways to reach a world's app, for `describe.each`: every route test runs through each. */
export const transports = [
  { name: "in-process fetch", open: async (w: { app: H3 }): Promise<Transport> => inProcess(w.app) },
  { name: "real server on 127.0.0.1", open: async (w: { app: H3 }): Promise<Transport> => listening(w.app) },
];

/** An RFC 9457 answer with this status and stable code (the text shown when it is not). */
export function expectProblem(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }, answer.text).toEqual({ status, code });
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.body).toMatchObject({ status, code, type: `https://casekit.dev/problems/${code}` });
}

/**
 * A DELETE with a body needs its length declared: node:http sends a DELETE body neither chunked
 * nor with Content-Length unless told (fetch, curl and browsers always declare it).
 */
export function withLength(headers: HeaderList, body: unknown): HeaderList {
  return body === undefined ? headers : [...headers, ["Content-Length", String(Buffer.byteLength(JSON.stringify(body)))]];
}

/** Requests through `client` authenticated with the API key `key`. */
export const actingAs = (client: Transport, key: string) => ({
  get: (path: string) => client.send("GET", path, { headers: bearer(key) }),
  post: (path: string, body?: unknown) => client.send("POST", path, { headers: bearer(key), body }),
  patch: (path: string, body: unknown) => client.send("PATCH", path, { headers: bearer(key), body }),
  delete: (path: string, body?: unknown) => client.send("DELETE", path, { headers: withLength(bearer(key), body), body }),
});
