/** One API request from the harness (set-up, bulk), refused loudly when it does not succeed. */
export async function api<T = Record<string, unknown>>(origin: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${origin}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}
