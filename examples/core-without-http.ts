// The core without HTTP: an in-memory SQLite database, a manual clock, one organization.
// Run: node --import tsx examples/core-without-http.ts
import { pathToFileURL } from "node:url";
import { createCaseKit, ManualClock } from "casekit";
import { createSqliteStorage } from "casekit/sqlite";

export async function main() {
  const storage = createSqliteStorage({ path: ":memory:" }); // or a file path, e.g. "./data/casekit.db"
  await storage.migrate();
  const clock = new ManualClock("2026-03-01T12:00:00.000Z"); // time moves only when told to
  const kit = createCaseKit({ storage, clock, config: { keyHashSecret: "example-key-hash-secret-0123456789abcdef" } });
  try {
    // What `casekit init` does: an organization, its admin user and an admin key (shown once).
    const init = await kit.setup.initOrganization({ organizationName: "My SOC", email: "me@example.com" });
    // Every service call takes a principal; here it comes from the key.
    const principal = await kit.authenticateKey(init.apiKey);

    const created = await kit.cases.create(principal, { title: "Phishing wave against finance", severity: 3, tags: [{ name: "phishing" }] });
    const list = await kit.cases.list(principal, { statusValue: ["new"] });
    clock.advance(60_000);
    const started = await kit.cases.update(principal, created.id, { statusValue: "in_progress" });
    clock.advance(60_000);
    const closed = await kit.cases.update(principal, created.id, { statusValue: "closed" }); // sets closedAt
    return { organizationId: init.organization.id, created, listed: list.data, started, closed };
  } finally {
    await storage.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { created, listed, started, closed } = await main();
  console.log(`case #${created.number} ${created.id}: ${created.statusValue} -> ${started.statusValue} -> ${closed.statusValue} (closedAt ${closed.closedAt})`);
  console.log(`${listed.length} case(s) listed as new`);
}
