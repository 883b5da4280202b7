// casekit inside an existing Express app, under /security, next to the app's own routes.
// Run: node --import tsx examples/express.ts   (http://127.0.0.1:3000/security/api/v1/…, prints an admin key)
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import express from "express";
import { createCaseKit } from "casekit";
import { createCaseKitClient } from "casekit/client";
import { caseKitExpress } from "casekit/express";
import { createSqliteStorage } from "casekit/sqlite";

export async function start(port = 0, host = "127.0.0.1") {
  const storage = createSqliteStorage({ path: ":memory:" }); // or a file path
  await storage.migrate();
  const kit = createCaseKit({ storage, config: { keyHashSecret: process.env.CASEKIT_KEY_HASH_SECRET ?? "example-key-hash-secret-0123456789abcdef" } });
  const { apiKey, organization } = await kit.setup.initOrganization({ organizationName: "My SOC", email: "me@example.com" });

  const app = express();
  // Mount casekit before any body parser: it reads (and size-limits) its own request bodies. The
  // prefix comes from Express (req.baseUrl): the API document and the docs page name /security.
  app.use("/security", caseKitExpress(kit));

  // The app's own routes, unchanged.
  app.use(express.json());
  app.get("/hello", (_req, res) => {
    res.json({ hello: "from express" });
  });

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    server.closeAllConnections();
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
