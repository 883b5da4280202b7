// Several stateless hosts on one PostgreSQL database: two API processes and one webhook
// dispatcher process, each its own `node` child, sharing one schema. A case created through
// API A is read through API B, and its webhook reaches a local receiver exactly once.
// Run: node --import tsx examples/postgres-cluster.ts   (needs PostgreSQL; CASEKIT_TEST_POSTGRES_URL
// or postgres://postgres@127.0.0.1:5432/test; a fresh schema per run, dropped at the end)
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toNodeHandler } from "h3/node";
import pg from "pg";
import { createCaseKit } from "casekit";
import { createPostgresRateLimitStore, createPostgresStorage } from "casekit/postgres";
import { createCaseKitApp } from "casekit/h3";
import { createCaseKitClient } from "casekit/client";
import { startWebhookWorker } from "casekit/webhooks";

const databaseUrl = process.env.CASEKIT_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
// Every host must share the key-hash secret (and so the webhook signing-secret seal).
const keyHashSecret = process.env.CASEKIT_KEY_HASH_SECRET ?? "example-key-hash-secret-0123456789abcdef";
const allowlist = "127.0.0.1"; // deliveries may go to loopback in this example only

/** One process of the cluster (`api` or `worker`): its own pools, the shared schema. */
async function runRole(role: "api" | "worker", schema: string) {
  const storage = createPostgresStorage({ connectionString: databaseUrl, schema, max: 4 });
  // Rate limits live in the database too, so every API process spends from one budget per key.
  const limitStore = createPostgresRateLimitStore({ connectionString: databaseUrl, schema, max: 2 });
  const kit = createCaseKit({ storage, rateLimits: { store: limitStore }, config: { keyHashSecret, webhookAllowlist: allowlist } });
  let stop: () => Promise<void>;
  if (role === "api") {
    const server = http.createServer(toNodeHandler(createCaseKitApp(kit)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    console.log(JSON.stringify({ ready: role, port: (server.address() as AddressInfo).port }));
    stop = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  } else {
    const loop = startWebhookWorker(kit, { allowlist, idleMs: 100, onError: (error) => console.error("dispatcher:", error) });
    console.log(JSON.stringify({ ready: role }));
    stop = () => loop.stop();
  }
  process.once("SIGTERM", () => void stop().then(() => Promise.all([storage.close(), limitStore.close()])).then(() => process.exit(0)));
}

/** Starts a process of the cluster and resolves with its first line, `{"ready": …}`. */
function spawnRole(role: "api" | "worker", schema: string): Promise<{ child: ChildProcess; port?: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), role, schema], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const line = output.split("\n").find((l) => l.startsWith('{"ready"'));
      if (line) resolve({ child, port: (JSON.parse(line) as { port?: number }).port });
    });
    child.once("exit", (code) => reject(new Error(`casekit ${role} exited with ${code} before it was ready`)));
  });
}

/** Migrates a fresh schema, creates the organization (as `casekit init` would), starts the processes. */
export async function start() {
  const schema = `casekit_example_${randomBytes(5).toString("hex")}`;
  const setup = createPostgresStorage({ connectionString: databaseUrl, schema, max: 1 });
  await setup.migrate();
  const { apiKey, organization } = await createCaseKit({ storage: setup, config: { keyHashSecret } }).setup.initOrganization({
    organizationName: "Cluster SOC",
    email: "admin@cluster.example",
  });
  await setup.close();

  const processes = await Promise.all([spawnRole("api", schema), spawnRole("api", schema), spawnRole("worker", schema)]);
  const [a, b] = processes.map(({ port }) => `http://127.0.0.1:${port}/api/v1`);
  const close = async () => {
    const exited = ({ child }: { child: ChildProcess }) =>
      new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : (child.once("exit", resolve), child.kill("SIGTERM"))));
    await Promise.all(processes.map(exited));
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  };
  return { apiA: a!, apiB: b!, apiKey, organizationId: organization.id, schema, pids: processes.map(({ child }) => child.pid!), close };
}

/** The walk-through: a webhook and a case through A, the case through B, the delivery at a receiver. */
export async function main() {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => (received.push({ headers: req.headers, body }), res.writeHead(204).end()));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const cluster = await start();
  try {
    const [a, b] = [cluster.apiA, cluster.apiB].map((baseUrl) => createCaseKitClient({ baseUrl, apiKey: cluster.apiKey }));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const webhook = await a!.POST("/webhooks", { body: { name: "SOAR", url: receiverUrl, events: ["case.created"] } });
    const created = await a!.POST("/cases", { body: { title: "Ransomware note on a file server", severity: 4 } });
    const throughB = await b!.GET("/cases/{id}", { params: { path: { id: created.data!.id } } });

    // The dispatcher process delivers; API B reports it once the receiver has answered.
    const listDeliveries = () => b!.GET("/webhooks/{id}/deliveries", { params: { path: { id: webhook.data!.id } } });
    let deliveries = await listDeliveries();
    for (const deadline = Date.now() + 20_000; deliveries.data?.data[0]?.status !== "delivered" && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      deliveries = await listDeliveries();
    }
    return {
      cluster: { apiA: cluster.apiA, apiB: cluster.apiB, organizationId: cluster.organizationId, schema: cluster.schema, pids: cluster.pids },
      webhook: webhook.data!,
      created: created.data!,
      throughB: throughB.data!,
      deliveries: deliveries.data!,
      received,
    };
  } finally {
    await cluster.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

const [, script, role, schema] = process.argv;
if (script && import.meta.url === pathToFileURL(script).href) {
  if ((role === "api" || role === "worker") && schema) {
    await runRole(role, schema);
  } else {
    const { created, throughB, received, cluster } = await main();
    console.log(`API A ${cluster.apiA} created case #${created.number}; API B ${cluster.apiB} read it: "${throughB.title}"`);
    console.log(`the receiver got ${received.length} delivery: ${received[0]?.body ?? "none"}`);
  }
}
