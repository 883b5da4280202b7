/**
 * Several hosts, one delivery: two casekit instances (two pools, two dispatchers, as two hosts
 * would run) on one PostgreSQL schema, stepping at the same time, against one loopback receiver.
 * Every event must reach the receiver exactly once when every attempt succeeds. Same server and
 * CI rule as the PostgreSQL conformance suite: with CI=true an unreachable server fails the run.
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

const url = postgresUrl;
const run = await postgresShouldRun("postgres hosts");
const schema = freshSchemaName("casekit_hosts");
const storages: Storage[] = [];
let receiver: Receiver | undefined;

afterAll(async () => {
  await Promise.all(storages.map((s) => s.close()));
  await receiver?.close();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect().catch(() => {});
  await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
  await admin.end().catch(() => {});
});

describe.skipIf(!run)("two hosts on one PostgreSQL database", () => {
  it("deliver each event exactly once between them", async () => {
    receiver = await startReceiver(() => ({ status: 204, delayMs: 2 }));
    const hosts = [0, 1].map(() => {
      const storage = createPostgresStorage({ connectionString: url, schema, max: 6 });
      storages.push(storage);
      return createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret, webhookAllowlist: "127.0.0.1" } });
    });
    await hosts[0]!.storage.migrate();
    await hosts[1]!.storage.migrate();
    const init = await hosts[0]!.setup.initOrganization({ organizationName: "Shared SOC", email: `admin-${schema}@shared.test` });
    const onFirst = await hosts[0]!.authenticateKey(init.apiKey);
    const onSecond = await hosts[1]!.authenticateKey(init.apiKey);
    await hosts[0]!.webhooks.create(onFirst, { name: "Receiver", url: receiver.url(), events: ["case.created"] });

    // Both hosts take requests and deliver at the same time.
    const created = await Promise.all(
      Array.from({ length: 60 }, (_, n) => (n % 2 === 0 ? hosts[0]!.cases.create(onFirst, { title: `From host 1 #${n}`, severity: 2 }) : hosts[1]!.cases.create(onSecond, { title: `From host 2 #${n}`, severity: 2 }))),
    );
    const dispatchers = hosts.map((kit) => kit.createDispatcher({ transport: createNodeTransport({ allowlist: parseWebhookAllowlist("127.0.0.1") }), batchSize: 7, concurrency: 4 }));
    const work = await Promise.all(
      dispatchers.map(async (dispatcher) => {
        let attempts = 0;
        for (let idle = 0; idle < 3; ) {
          const step = await dispatcher.step();
          attempts += step.attempts;
          idle = step.events === 0 && step.attempts === 0 ? idle + 1 : 0;
        }
        return attempts;
      }),
    );

    const caseIds = receiver.received.map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id);
    expect(caseIds.sort()).toEqual(created.map((c) => c.id).sort());
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(60);
    expect(work[0]! + work[1]!).toBe(60);
    // Both hosts did part of the work.
    expect(work.every((n) => n > 0)).toBe(true);
  });
});
