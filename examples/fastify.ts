// casekit inside an existing Fastify app, under /security, next to the app's own routes.
// Run: node --import tsx examples/fastify.ts   (http://127.0.0.1:3000/security/api/v1/…, prints an admin key)
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import Fastify from "fastify";
import { toNodeHandler } from "h3/node";
import { createCaseKit } from "../core/index.js";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { createCaseKitApp } from "../server/index.js";
import { createCaseKitClient } from "../server/client/index.js";

export async function start(port = 0, host = "127.0.0.1") {
  const storage = createSqliteStorage({ path: ":memory:" }); // or a file path
  await storage.migrate();
  const kit = createCaseKit({ storage, config: { keyHashSecret: process.env.CASEKIT_KEY_HASH_SECRET ?? "example-key-hash-secret-0123456789abcdef" } });
  const { apiKey, organization } = await kit.setup.initOrganization({ organizationName: "My SOC", email: "me@example.com" });

  const prefix = "/security";
  const casekit = toNodeHandler(createCaseKitApp(kit));

  const app = Fastify({ forceCloseConnections: true }); // close() ends keep-alive connections too
  app.get("/hello", async () => ({ hello: "from fastify" }));
  await app.register(
    async (scope) => {
      // Leave request bodies unread: casekit reads (and size-limits) its own.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
      const handOver = (request: { raw: Parameters<typeof casekit>[0] }, reply: { hijack(): void; raw: Parameters<typeof casekit>[1] }) => {
        reply.hijack(); // casekit writes the whole response itself
        // Strip the prefix as Express's app.use does, so casekit sees /api/v1/…, /livez, /readyz.
        request.raw.url = request.raw.url!.slice(prefix.length) || "/";
        return casekit(request.raw, reply.raw);
      };
      scope.all("/", handOver);
      scope.all("/*", handOver);
    },
    { prefix },
  );

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
