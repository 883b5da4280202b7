/**
 * The process the crash test kills: it changes records — committed ones, and units of work that
 * write a change and its event and then roll back — while its webhook dispatcher delivers, until
 * it is killed. With MODE=drain it changes nothing and only delivers, until killed.
 * Usage: node --import tsx crash-child.ts   (env CRASH_DB, CRASH_ORG, CRASH_USER, CRASH_SECRET, MODE)
 */
import { createNodeTransport } from "../../adapters/outbound/node-transport.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { recordChange } from "../../core/audit/record-change.js";
import { createCaseKit, parseWebhookAllowlist } from "../../core/index.js";
import { startDispatchLoop } from "../../server/worker.js";
import { caseRecord } from "../conformance/case-record.js";
import { fastPasswordHasher } from "../helpers/fast-passwords.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const storage = createSqliteStorage({ path: env("CRASH_DB") });
const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, config: { keyHashSecret: env("CRASH_SECRET"), webhookAllowlist: "127.0.0.1" } });
const admin = await kit.principalFor({ organizationId: env("CRASH_ORG"), userId: env("CRASH_USER"), scopes: ["cases:write"], tlpClearance: 4 });
// A short lease, so a restarted process soon takes over what the killed one held.
const dispatcher = kit.createDispatcher({ transport: createNodeTransport({ allowlist: parseWebhookAllowlist("127.0.0.1") }), leaseMs: 400, concurrency: 4 });
startDispatchLoop(dispatcher, { idleMs: 10, onError: (error) => process.stderr.write(`dispatch step failed: ${String(error)}\n`) });
process.stdout.write("ready\n");

if (process.env.MODE !== "drain") {
  for (let n = 0; ; n++) {
    await kit.cases.create(admin, { title: `committed ${process.pid}-${n}`, severity: 2 });
    if (n % 3 === 2) await rolledBack(`rolled back ${process.pid}-${n}`);
  }
}

/** A change, its audit entry and its event written in one unit of work that then fails. */
async function rolledBack(title: string): Promise<void> {
  await storage
    .transaction(async (tx) => {
      const at = new Date();
      const number = await tx.organizations.nextCaseNumber(admin.organizationId);
      const record = caseRecord(kit.deps.ids.next("case"), admin.organizationId, number, at.toISOString(), { title, createdBy: admin.userId });
      await tx.cases.insert(record);
      await recordChange(kit.deps, tx, admin, { name: "case.created", resourceType: "case", before: null, after: record, tlp: record.tlp, now: at });
      throw new Error("the unit of work fails after writing");
    })
    .catch(() => undefined);
}
