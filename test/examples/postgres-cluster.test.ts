// examples/postgres-cluster.ts: two API processes and a dispatcher process on one PostgreSQL schema.
// Same rule as the PostgreSQL conformance suite: with CI=true an unreachable server fails the run.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { main } from "../../examples/postgres-cluster.js";
import { postgresShouldRun, postgresUrl } from "../helpers/postgres.js";

const url = postgresUrl;
const run = await postgresShouldRun("examples/postgres-cluster");

describe.skipIf(!run)("examples/postgres-cluster", () => {
  it("serves a case created through API A from API B, and delivers its webhook once", async () => {
    const { cluster, webhook, created, throughB, deliveries, received } = await main();

    // Three separate processes, none of them this one.
    expect(new Set([...cluster.pids, process.pid]).size).toBe(4);
    expect(cluster.apiA).not.toBe(cluster.apiB);

    expect(created).toMatchObject({ number: 1, organizationId: cluster.organizationId, title: "Ransomware note on a file server", severity: 4 });
    expect(throughB).toEqual(created);

    // main() returns after every process has exited, so no later delivery can still arrive.
    expect(received).toHaveLength(1);
    const [delivery] = deliveries.data;
    expect(deliveries.data).toHaveLength(1);
    expect(delivery).toMatchObject({ webhookId: webhook.id, eventName: "case.created", status: "delivered", attemptCount: 1 });
    expect(received[0]!.headers["webhook-id"]).toBe(delivery!.id);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ type: "case.created", data: { id: created.id, number: 1 } });

    // The run's schema is dropped when the cluster closes.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query("select 1 from pg_namespace where nspname = $1", [cluster.schema])).rowCount).toBe(0);
    } finally {
      await client.end();
    }
  }, 60_000);
});
