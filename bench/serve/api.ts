/**
 * One request from the harness (set-up, bulk, probes) on a connection of its own: a kept-alive
 * one may be closed by the server after an idle spell (seeding) just as it is reused, and a
 * POST is not retried. Refused loudly when it does not succeed.
 */
import http from "node:http";

export function request(url: string, key: string, method = "GET", body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method,
      agent: false,
      headers: { authorization: `Bearer ${key}`, ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }) },
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

export async function api<T = Record<string, unknown>>(origin: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const { status, text } = await request(`${origin}/api/v1${path}`, key, method, body);
  if (status < 200 || status > 299) throw new Error(`${method} ${path}: ${status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}
