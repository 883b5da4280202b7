/**
 * The WAL under sustained writes: N concurrent clients create cases (the case counter, a case with
 * a description, an audit entry, an event per unit) on a SQLite file for a while, as fast as the
 * group-committed writer takes them, while a few clients keep reading pages of cases through the
 * reader connections (so checkpoints always meet readers). The WAL file's size is sampled every
 * 250 ms; reported: its peak and its size at the end, and the latency of units (a TRUNCATE
 * checkpoint holds the writer: that is where a stall would show).
 *
 *   npm run bench -- wal-bound
 *   BENCH_SECONDS=600 BENCH_WAL_LIMIT=268435456 npm run bench -- wal-bound
 *
 * BENCH_SECONDS (60), BENCH_CLIENTS (50 writers), BENCH_READERS (4), BENCH_WAL_LIMIT (bytes, the
 * adapter's default when unset), BENCH_DESCRIPTION (characters per case, 1000).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "../adapters/sqlite/index.js";
import { defaultWalLimitBytes } from "../adapters/sqlite/storage.js";
import { createFixtures } from "../test/conformance/fixtures.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const writers = Number(process.env.BENCH_CLIENTS ?? 50);
const readers = Number(process.env.BENCH_READERS ?? 4);
const walLimitBytes = Number(process.env.BENCH_WAL_LIMIT ?? defaultWalLimitBytes);
const description = "x".repeat(Number(process.env.BENCH_DESCRIPTION ?? 1000));

const scratch = mkdtempSync(join(tmpdir(), "casekit-wal-bound-"));
const file = join(scratch, "wal.sqlite");
const walBytes = () => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};
const turn = () => new Promise<void>((done) => setImmediate(done));
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const storage = createSqliteStorage({ path: file, walLimitBytes });
await storage.migrate();
const f = createFixtures();
const org = f.organization();
await storage.transaction((tx) => tx.organizations.insert(org));

let units = 0;
let reads = 0;
const latencies: number[] = [];
const samples: number[] = [];
const deadline = performance.now() + seconds * 1000;
const sampler = setInterval(() => samples.push(walBytes()), 250);

const writer = async () => {
  while (performance.now() < deadline) {
    const started = performance.now();
    await storage.transaction(async (tx) => {
      const number = await tx.organizations.nextCaseNumber(org.id);
      const record = f.caseRecord(org.id, { number, description });
      await tx.cases.insert(record);
      await tx.audit.append(f.auditEntry(org.id, { target: { type: "case", id: record.id, caseId: record.id } }));
      await tx.events.append(f.event(org.id, { resourceId: record.id }));
    });
    latencies.push(performance.now() - started);
    units += 1;
    await turn();
  }
};
const reader = async () => {
  while (performance.now() < deadline) {
    await storage.read((tx) => tx.cases.list(org.id, { maxTlp: 4 }, { limit: 50 }));
    reads += 1;
    await turn();
  }
};
const started = performance.now();
await Promise.all([...Array.from({ length: writers }, writer), ...Array.from({ length: readers }, reader)]);
const elapsed = (performance.now() - started) / 1000;
clearInterval(sampler);
const atEnd = walBytes();
await storage.close();
const afterClose = walBytes();
rmSync(scratch, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
console.log(`\nWAL under sustained writes: ${writers} writers, ${readers} readers, ${seconds} s, walLimitBytes ${mib(walLimitBytes)}`);
console.log(`  units ${units} (${(units / elapsed).toFixed(0)}/s), reads ${reads} (${(reads / elapsed).toFixed(0)}/s)`);
console.log(`  WAL peak ${mib(Math.max(...samples, atEnd))}, at the end ${mib(atEnd)}, after close ${mib(afterClose)}`);
console.log(`  unit latency ms: p50 ${at(0.5)}, p99 ${at(0.99)}, p99.9 ${at(0.999)}, max ${at(1)}`);
