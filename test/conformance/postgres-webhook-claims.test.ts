/**
 * Webhook claims on a real PostgreSQL server from two storages (two pools, as two dispatcher
 * hosts would have) on one schema: FOR UPDATE SKIP LOCKED must hand every event and every due
 * delivery to exactly one of them. Same server and CI rule as postgres.test.ts: with CI=true an
 * unreachable server fails the run; elsewhere the file is skipped, saying why.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Delivery, DomainEvent, Storage, StoredWebhook } from "../../core/index.js";
import { createPostgresStorage } from "../../adapters/postgres/index.js";
import { createFixtures } from "./fixtures.js";
import { freshSchemaName, postgresShouldRun, postgresUrl } from "../helpers/postgres.js";

const url = postgresUrl;
const run = await postgresShouldRun("postgres webhook claims");
const schema = freshSchemaName("casekit_whk");

describe.skipIf(!run)("webhook claims from two PostgreSQL hosts", () => {
  const f = createFixtures();
  let hosts: Storage[] = [];
  let admin: pg.Pool;
  const org = f.organization();
  let webhook: StoredWebhook;

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: url, max: 1 });
    hosts = [0, 1].map(() => createPostgresStorage({ connectionString: url, schema, max: 6 }));
    await hosts[0]!.migrate();
    webhook = f.webhook(org.id, {
      name: "race",
      url: "https://hooks.example.com/race",
      events: ["*"],
      timeoutMs: 5000,
      secret: "v1.sealed",
      secretStart: "whsec_race",
      grant: { keyId: null, tlpClearance: 4, scopes: [] },
    });
    await hosts[0]!.transaction(async (tx) => {
      await tx.organizations.insert(org);
      await tx.webhooks.insert(webhook);
    });
  });

  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await admin?.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
    await admin?.end();
  });

  it("every event is claimed by exactly one host, however the claims interleave", async () => {
    const events: DomainEvent[] = Array.from({ length: 200 }, () => f.event(org.id));
    await hosts[0]!.transaction(async (tx) => {
      for (const event of events) await tx.events.append(event);
    });
    // Each claim holds its rows a moment before committing, so the other host's claims meet locks.
    const claims = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        hosts[i % 2]!.transaction(async (tx) => {
          const claimed = await tx.deliveries.claimEvents(10, f.at());
          await new Promise((resolve) => setTimeout(resolve, 5));
          return claimed;
        }),
      ),
    );
    const ids = claims.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(events.length);
    expect(await hosts[1]!.transaction((tx) => tx.deliveries.claimEvents(10, f.at()))).toEqual([]);
  });

  it("every due delivery is leased by exactly one host; a lease holds until it expires", async () => {
    const events: DomainEvent[] = Array.from({ length: 120 }, () => f.event(org.id));
    const now = f.at();
    const deliveries: Delivery[] = events.map((event) => ({
      id: f.ids.next("dlv"),
      organizationId: org.id,
      webhookId: webhook.id,
      eventId: event.id,
      eventName: event.name,
      status: "pending",
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: null,
      lastResponseStatus: null,
      lastErrorClass: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    }));
    await hosts[0]!.transaction(async (tx) => {
      for (const event of events) await tx.events.append(event);
      await tx.deliveries.insertMany(deliveries);
    });
    const lease = new Date(Date.parse(now) + 60_000).toISOString();
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        hosts[i % 2]!.transaction(async (tx) => {
          const claimed = await tx.deliveries.claimDue(8, now, lease);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return claimed;
        }),
      ),
    );
    const ids = claims.flat().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(deliveries.map((d) => d.id).sort());
    // Leased: nobody takes them before the lease ends; anybody may after.
    expect(await hosts[1]!.transaction((tx) => tx.deliveries.claimDue(500, now, lease))).toEqual([]);
    expect(await hosts[1]!.transaction((tx) => tx.deliveries.claimDue(500, lease, lease))).toHaveLength(deliveries.length);
  });

  it("webhooks added and removed by both hosts at once are all counted: an organization's active count is exact after any interleaving", async () => {
    const other = f.organization();
    await hosts[0]!.transaction((tx) => tx.organizations.insert(other));
    const count = async () => Number((await admin.query(`select active_webhooks from "${schema}".organizations where id = $1`, [other.id])).rows[0].active_webhooks);
    const added = Array.from({ length: 12 }, (_, i) => f.webhook(other.id, { name: `race ${i}` }));
    // Each unit holds its insert a moment before committing, so the other host's writes overlap it.
    await Promise.all(
      added.map((webhook, i) =>
        hosts[i % 2]!.transaction(async (tx) => {
          await tx.webhooks.insert(webhook);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }),
      ),
    );
    expect(await count()).toBe(12);
    await Promise.all(
      added.slice(0, 7).map((webhook, i) =>
        hosts[i % 2]!.transaction(async (tx) => {
          if (i % 2 === 0) await tx.webhooks.delete(other.id, webhook.id);
          else await tx.webhooks.update({ ...webhook, status: "disabled", disabledReason: "race" });
          await new Promise((resolve) => setTimeout(resolve, 5));
        }),
      ),
    );
    expect(await count()).toBe(5);
  });
});
