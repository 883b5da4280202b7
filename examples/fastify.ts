// casekit inside an existing Fastify app, under /security, next to the app's own routes.
// Run: node --import tsx examples/fastify.ts   (http://127.0.0.1:3000/security/api/v1/…, prints an admin key)
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import Fastify from "fastify";
import { createCaseKit } from "casekit";
import { createCaseKitClient } from "casekit/client";
import { caseKitFastify } from "casekit/fastify";
import { createSqliteStorage } from "casekit/sqlite";

export async function start(port = 0, host = "127.0.0.1") {
  const storage = createSqliteStorage({ path: ":memory:" }); // or a file path
  await storage.migrate();
  const kit = createCaseKit({ storage, config: { keyHashSecret: process.env.CASEKIT_KEY_HASH_SECRET ?? "example-key-hash-secret-0123456789abcdef" } });
  const { apiKey, organization } = await kit.setup.initOrganization({ organizationName: "My SOC", email: "me@example.com" });

  const app = Fastify({ forceCloseConnections: true }); // close() ends keep-alive connections too
  app.get("/hello", async () => ({ hello: "from fastify" }));
  // An encapsulated plugin: bodies under /security are left for casekit to read (and size-limit),
  // the app's own routes keep Fastify's parsers.
  await app.register(caseKitFastify(kit), { prefix: "/security" });

  await app.listen({ port, host });
  const url = `http://${host}:${(app.server.address() as AddressInfo).port}`;
  const close = async () => {
    await app.close();
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
