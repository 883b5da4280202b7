// The HTTP API on plain node:http (no listhen): an in-memory SQLite kit served by h3's toNodeHandler.
// Run: node --import tsx examples/node-http.ts   (listens on http://127.0.0.1:3000, prints an admin key)
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { toNodeHandler } from "h3/node";
import { createCaseKit } from "casekit";
import { createSqliteStorage } from "casekit/sqlite";
import { createCaseKitApp } from "casekit/h3";
import type { AccessLogLine } from "casekit/h3";

/** Starts the API on `port` (0 picks a free one); `close()` stops the server and the storage. */
export async function start(port = 0, { host = "127.0.0.1", logger }: { host?: string; logger?: (line: AccessLogLine) => void } = {}) {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  const kit = createCaseKit({ storage, config: { keyHashSecret: process.env.CASEKIT_KEY_HASH_SECRET ?? "example-key-hash-secret-0123456789abcdef" } });
  const { apiKey, organization } = await kit.setup.initOrganization({ organizationName: "My SOC", email: "me@example.com" });

  const app = createCaseKitApp(kit, { logger }); // one access-log line per request
  const server = http.createServer(toNodeHandler(app));
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  const close = async () => {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    await storage.close();
  };
  return { server, port: address.port, url: `http://${host}:${address.port}`, apiKey, organizationId: organization.id, close };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url, apiKey, close } = await start(Number(process.argv[2] ?? 3000), { logger: (line) => console.log(JSON.stringify(line)) });
  console.log(`casekit on ${url}/api/v1\nAPI key (shown once): ${apiKey}`);
  process.once("SIGINT", () => void close().then(() => process.exit(0)));
}
