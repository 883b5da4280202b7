/**
 * Audit kinds (`audit.<action>`) delivered by two hosts' dispatchers sharing one PostgreSQL
 * database: each audit event reaches the receiver once, whichever host moved it into the outbox.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeTransport } from "../../adapters/outbound/node-transport.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import type { Storage } from "../../core/index.js";
import { createCaseKit, parseWebhookAllowlist } from "../../core/index.js";
import { keyHashSecret } from "../helpers/kit.js";
import type { Receiver } from "../helpers/receiver.js";
import { startReceiver } from "../helpers/receiver.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const run = await postgresShouldRun("postgres audit kinds");
const schema = freshSchemaName("casekit_audit_kinds");
const storages: Storage[] = [];
let receiver: Receiver | undefined;

afterAll(async () => {
  await Promise.all(storages.map((s) => s.close()));
  await receiver?.close();
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect().catch(() => {});
  await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
  await admin.end().catch(() => {});
});

describe.skipIf(!run)("audit kinds on two hosts sharing PostgreSQL", () => {
  it("deliver each audit event exactly once between them", async () => {
    receiver = await startReceiver(() => ({ status: 204 }));
    const hosts = [0, 1].map(() => {
      const storage = createPostgresStorage({ connectionString: postgresUrl, schema, max: 6 });
      storages.push(storage);
      return createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret, webhookAllowlist: "127.0.0.1" } });
    });
    await hosts[0]!.storage.migrate();
    await hosts[1]!.storage.migrate();
    const init = await hosts[0]!.setup.initOrganization({ organizationName: "Shared SOC", email: `admin-${schema}@shared.test` });
    const principals = await Promise.all(hosts.map((kit) => kit.authenticateKey(init.apiKey)));
    await hosts[0]!.webhooks.create(principals[0]!, { name: "Audit", url: receiver.url(), events: ["audit.key.created"] });
    const dispatchers = hosts.map((kit) => kit.createDispatcher({ transport: createNodeTransport({ allowlist: parseWebhookAllowlist("127.0.0.1") }), batchSize: 3, concurrency: 4 }));
    await dispatchers[0]!.step(); // the subscription starts from the head

    const created = await Promise.all(Array.from({ length: 20 }, (_, n) => hosts[n % 2]!.keys.create(principals[n % 2]!, { name: `key ${n}`, scopes: ["cases:read"] })));
    await Promise.all(
      dispatchers.map(async (dispatcher) => {
        for (let idle = 0; idle < 3; ) {
          const step = await dispatcher.step();
          idle = step.events === 0 && step.attempts === 0 ? idle + 1 : 0;
        }
      }),
    );

    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: { id: string; target: { id: string } } });
    expect(bodies.every((b) => b.type === "audit.key.created")).toBe(true);
    expect(bodies.map((b) => b.data.target.id).sort()).toEqual(created.map((k) => k.id).sort());
    expect(new Set(bodies.map((b) => b.data.id)).size).toBe(20);
  });
});
