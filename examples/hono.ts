// casekit inside a Hono app, under /security, through the Fetch API, next to the app's own routes.
// Run: node --import tsx examples/hono.ts   (http://127.0.0.1:3000/security/api/v1/…, prints an admin key)
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createCaseKit } from "casekit";
import { createCaseKitClient } from "casekit/client";
import { caseKitHono } from "casekit/hono";
import { createSqliteStorage } from "casekit/sqlite";

export async function start(port = 0, host = "127.0.0.1") {
  const storage = createSqliteStorage({ path: ":memory:" }); // or a file path
  await storage.migrate();
  const kit = createCaseKit({ storage, config: { keyHashSecret: process.env.CASEKIT_KEY_HASH_SECRET ?? "example-key-hash-secret-0123456789abcdef" } });
  const { apiKey, organization } = await kit.setup.initOrganization({ organizationName: "My SOC", email: "me@example.com" });

  const app = new Hono();
  app.get("/hello", (c) => c.json({ hello: "from hono" }));
  // Everything under /security is casekit's; the prefix is what the route matched. The same line
  // works wherever Hono runs (Node, Bun, Deno, workers): casekit answers with the Fetch API.
  app.all("/security/*", caseKitHono(kit));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const running = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(running));
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    await storage.close();
  };
  return { url, apiBaseUrl: `${url}/security/api/v1`, apiKey, organizationId: organization.id, close };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { apiBaseUrl, apiKey, close } = await start(Number(process.argv[2] ?? 3000));
  console.log(`casekit on ${apiBaseUrl}\nAPI key (shown once): ${apiKey}`);
  // The typed client reaches the API through the prefix like any other.
  const client = createCaseKitClient({ baseUrl: apiBaseUrl, apiKey });
  const { data, error } = await client.POST("/cases", { body: { title: "First case", severity: 2 } });
  console.log(data ? `created case #${data.number} (${data.id})` : `refused: ${error.code}`);
  process.once("SIGINT", () => void close().then(() => process.exit(0)));
}
