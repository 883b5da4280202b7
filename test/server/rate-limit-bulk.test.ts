// Issue 12 item 5(b) over HTTP: a bulk request costs its key one unit plus one per 100 rows it
// touched, reported in that answer's rate-limit headers.
import { describe, expect, it } from "vitest";
import { rowCost, tierLimits } from "../../core/index.js";
import { apiBasePath } from "../../server/index.js";
import { addKey, addUser } from "../helpers/kit.js";
import { taskRecord } from "../conformance/task-record.js";
import { bearer, inProcess, withLength } from "./http.js";
import { makeWorld } from "./world.js";
import type { World } from "./world.js";

async function seedTasks(w: World, caseId: string, count: number): Promise<string[]> {
  const at = w.clock.now().toISOString();
  const ids = Array.from({ length: count }, () => w.kit.deps.ids.next("task"));
  await w.kit.storage.transaction(async (tx) => {
    for (const [i, id] of ids.entries()) await tx.tasks.insert(taskRecord(id, w.organizationId, caseId, at, { title: `Seeded ${i}`, tlp: 1, order: i }));
  });
  return ids;
}

describe("the cost of a bulk request", () => {
  it.each([
    ["POST", "selectAll", 250],
    ["DELETE", "ids", 420],
    ["POST", "ids", 60],
  ] as const)("%s /bulk/tasks by %s over %i rows: 1 + ⌊rows/100⌋ units, in that answer's headers", async (method, selection, rows) => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const caseId = (await w.kit.cases.create(w.admin, { title: "Bulk target", severity: 2, tlp: 1 })).id;
    const ids = await seedTasks(w, caseId, rows);
    const owner = await addUser(w.kit, w.organizationId, { role: "admin" });
    const secret = (await addKey(w.kit, owner, { tier: "standard", scopes: ["tasks:read", "tasks:write"] })).secret;
    const body = {
      ...(selection === "ids" ? { ids } : { options: { selectAll: true, filters: { caseId } } }),
      ...(method === "POST" ? { fields: { title: "Triaged" } } : {}),
    };
    const answer = await client.send(method, `${apiBasePath}/bulk/tasks`, { headers: method === "DELETE" ? withLength(bearer(secret), body) : bearer(secret), body });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.matched).toBe(rows);
    const { burst } = tierLimits.standard;
    expect(Number(answer.headers.get("x-ratelimit-remaining"))).toBe(burst - 1 - rowCost(rows));
  });

  it("a key whose budget a bulk request spent is refused on its next request (429 with Retry-After)", async () => {
    const w = await makeWorld();
    const client = inProcess(w.app);
    const caseId = (await w.kit.cases.create(w.admin, { title: "Bulk target", severity: 2, tlp: 1 })).id;
    await seedTasks(w, caseId, 1_500);
    const owner = await addUser(w.kit, w.organizationId, { role: "admin" });
    const secret = (await addKey(w.kit, owner, { tier: "basic", scopes: ["tasks:read", "tasks:write"] })).secret;
    const bulk = await client.send("POST", `${apiBasePath}/bulk/tasks`, { headers: bearer(secret), body: { options: { selectAll: true }, fields: { title: "Triaged" } } });
    expect(bulk.status).toBe(200);
    expect(bulk.body.matched).toBe(1_500);
    expect(bulk.headers.get("x-ratelimit-remaining")).toBe("0");
    const next = await client.send("GET", `${apiBasePath}/health`, { headers: bearer(secret) });
    expect(next.status).toBe(429);
    // 16 units spent against a burst of 10 at one a second: 7 s until the next one fits.
    expect(Number(next.headers.get("retry-after"))).toBe(1 + rowCost(1_500) - tierLimits.basic.burst + 1);
  });
});
