/**
 * Bulk task operations at scale (`npm run bench -- bulk-tasks`): 100 000 tasks over 100 cases in
 * SQLite (in memory, then a file), then a selectAll bulk update and a selectAll bulk soft delete
 * over all of them, each in one transaction with an audit entry and an outbox event per task.
 * Reported in milliseconds and against the time one plain `GET /tasks` page takes in the same run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { createCaseKit, ManualClock } from "../core/index.js";
import type { Task } from "../core/index.js";

const taskCount = Number(process.env.BULK_TASKS ?? 100_000);
const caseCount = 100;

async function run(label: string, path: string): Promise<void> {
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const storage = createSqliteStorage({ path });
  await storage.migrate();
  // A selectAll over every task: above the default cap (CASEKIT_BULK_MAX_ROWS, 10 000).
  const kit = createCaseKit({ storage, clock, config: { keyHashSecret: "bench-key-hash-secret-0123456789", bulkMaxRows: taskCount } });
  const init = await kit.setup.initOrganization({ organizationName: "Bench SOC", email: "admin@bench.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  const caseIds: string[] = [];
  for (let i = 0; i < caseCount; i++) caseIds.push((await kit.cases.create(admin, { title: `Case ${i}`, severity: 2, tlp: 1 })).id);

  const at = clock.now().toISOString();
  await storage.transaction(async (tx) => {
    for (let i = 0; i < taskCount; i++) {
      const task: Task = {
        id: kit.deps.ids.next("task"),
        organizationId: admin.organizationId,
        caseId: caseIds[i % caseCount]!,
        title: `Task ${i}`,
        description: null,
        status: "waiting",
        assigneeId: null,
        dueDate: null,
        mandatory: false,
        tlp: 1,
        order: i,
        customFields: {},
        createdAt: at,
        updatedAt: at,
        createdBy: admin.userId,
        deletedAt: null,
        deletedBy: null,
      };
      await tx.tasks.insert(task);
    }
  });

  /** Times `work`, and the longest the event loop went without a turn meanwhile (what a concurrent request waits). */
  const time = async <T>(work: () => Promise<T>): Promise<{ ms: number; value: T; longestBlockMs: number }> => {
    let longestBlockMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestBlockMs = Math.max(longestBlockMs, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    const value = await work();
    clearInterval(ticker);
    return { ms: performance.now() - started, value, longestBlockMs };
  };
  const page = await time(() => kit.tasks.list(admin, { limit: "50" }));
  clock.advance(1000);
  const updated = await time(() => kit.tasks.bulkUpdate(admin, { options: { selectAll: true, filters: { status: "waiting" } }, fields: { status: "in_progress", assigneeId: admin.userId } }));
  clock.advance(1000);
  const deleted = await time(() => kit.tasks.bulkDelete(admin, { options: { selectAll: true } }));
  console.log(`\nbulk tasks, SQLite ${label}, ${taskCount} tasks`);
  console.log(`  GET /tasks first page (baseline)          ${page.ms.toFixed(1).padStart(8)} ms`);
  console.log(`  selectAll bulk update (${updated.value.updated} updated)   ${updated.ms.toFixed(0).padStart(8)} ms   ${(updated.ms / page.ms).toFixed(0)}× baseline, longest loop block ${updated.longestBlockMs.toFixed(1)} ms`);
  console.log(`  selectAll bulk delete (${deleted.value.deleted} deleted)   ${deleted.ms.toFixed(0).padStart(8)} ms   ${(deleted.ms / page.ms).toFixed(0)}× baseline, longest loop block ${deleted.longestBlockMs.toFixed(1)} ms`);
  await storage.close();
}

await run("in memory", ":memory:");
const dir = mkdtempSync(join(tmpdir(), "casekit-bulk-"));
try {
  await run("file (WAL)", join(dir, "bench.db"));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
