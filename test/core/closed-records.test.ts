/**
 * Closed means closed (core/access/closed-records.ts), as a matrix over (status, caller, change)
 * for cases and alerts, over (case status, caller, task operation) for tasks, and over the paths
 * that reach a record another way: bulk assign, bulk task update and delete, merge. The expected
 * outcome of each cell comes from the rule as the README states it, written out independently
 * below; a refused change leaves the record, its events and its audit entries as they were.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { CaseKit, ErrorCode, Principal, User } from "../../core/index.js";
import { isCaseKitError } from "../../core/index.js";
import { addKey, addUser, makeTestKit } from "../helpers/kit.js";

type Caller = "admin" | "assignee" | "other";
const callers: Caller[] = ["admin", "assignee", "other"];
type Outcome = "ok" | ErrorCode;

let kit: CaseKit;
let organizationId: string;
let principals: Record<Caller, Principal>;
let assigneeUser: User;
let teamId: string;
let refs = 0;

beforeAll(async () => {
  const t = await makeTestKit();
  kit = t.kit;
  organizationId = t.organizationId;
  assigneeUser = await addUser(kit, organizationId, { role: "analyst" });
  const otherUser = await addUser(kit, organizationId, { role: "analyst" });
  const scopes = ["cases:read", "cases:write", "alerts:read", "alerts:write", "tasks:read", "tasks:write"] as const;
  const keyOf = async (user: User) => kit.authenticateKey((await addKey(kit, user, { scopes: [...scopes] })).secret);
  principals = { admin: t.admin, assignee: await keyOf(assigneeUser), other: await keyOf(otherUser) };
  teamId = (await kit.teams.create(t.admin, { name: "Blue team" })).id;
});

async function outcomeOf(promise: Promise<unknown>): Promise<Outcome> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (isCaseKitError(error)) return error.code;
    throw error;
  }
}

/** What a refused change must leave untouched: the organization's events and audit entries. */
const trail = () =>
  kit.storage.read(async (tx) => ({ events: (await tx.events.list(organizationId, { limit: 1 }))[0]?.id, audit: (await tx.audit.list(organizationId, { limit: 1 }))[0]?.id }));

/** Collects the cells whose outcome differs from the expected one, and refused cells that changed something. */
function matrix() {
  const mismatches: string[] = [];
  return {
    mismatches,
    async cell(name: string, expected: Outcome, act: () => Promise<unknown>, stored: () => Promise<unknown>): Promise<void> {
      const [before, trailBefore] = [await stored(), await trail()];
      const actual = await outcomeOf(act());
      if (actual !== expected) mismatches.push(`${name}: expected ${expected}, got ${actual}`);
      if (actual !== "ok" && (JSON.stringify(await stored()) !== JSON.stringify(before) || JSON.stringify(await trail()) !== JSON.stringify(trailBefore))) {
        mismatches.push(`${name}: refused, yet something changed`);
      }
    },
  };
}

describe("cases", () => {
  const statuses = ["new", "in_progress", "on_hold", "resolved", "closed"] as const;
  type Status = (typeof statuses)[number];
  const closed = (s: Status) => s === "resolved" || s === "closed";
  /** The transition table (core/cases/lifecycle.ts), restated. */
  const moves: Record<Status, Status[]> = {
    new: ["in_progress", "on_hold", "resolved", "closed"],
    in_progress: ["on_hold", "resolved", "closed"],
    on_hold: ["in_progress", "resolved", "closed"],
    resolved: ["closed", "in_progress"],
    closed: ["in_progress"],
  };
  const fields = (caller: Caller): Record<string, unknown> => ({
    title: "Renamed",
    severity: 4,
    description: "More detail",
    tlp: 3,
    pap: 3,
    typeValue: "phishing",
    assigneeId: principals[caller].userId,
    clientId: "client-9",
    source: "edr",
    sourceRef: `edr-${++refs}`,
    tags: [{ name: "escalated" }],
    teams: [{ id: teamId }],
    customFields: { ticket: 42 },
  });

  async function caseIn(status: Status): Promise<string> {
    const created = await kit.cases.create(principals.admin, { title: "Case", severity: 2, assigneeId: assigneeUser.id });
    if (status !== "new") await kit.cases.update(principals.admin, created.id, { statusValue: status });
    return created.id;
  }
  const stored = (id: string) => () => kit.storage.read((tx) => tx.cases.findById(organizationId, id));

  it.each(statuses)("a %s case: every caller × every field and status move gets what the rule says", async (status) => {
    const m = matrix();
    for (const caller of callers) {
      const mayReopen = caller !== "other";
      for (const [field, value] of Object.entries(fields(caller))) {
        const id = await caseIn(status);
        // The assignee setting themselves is no change; everyone else's value differs.
        const noChange = field === "assigneeId" && caller === "assignee";
        const expected: Outcome = closed(status) && !noChange ? "record_closed" : "ok";
        await m.cell(`${caller} sets ${field}`, expected, () => kit.cases.update(principals[caller], id, { [field]: value }), stored(id));
      }
      for (const to of statuses) {
        const id = await caseIn(status);
        const reopen = closed(status) && !closed(to);
        const expected: Outcome = to !== status && !moves[status].includes(to) ? "invalid_transition" : reopen && !mayReopen ? "invalid_transition" : "ok";
        await m.cell(`${caller} moves to ${to}`, expected, () => kit.cases.update(principals[caller], id, { statusValue: to }), stored(id));
      }
      const id = await caseIn(status);
      await m.cell(`${caller} resends the stored title`, "ok", () => kit.cases.update(principals[caller], id, { title: "Case" }), stored(id));
      if (closed(status)) {
        const reopened = await caseIn(status);
        await m.cell(
          `${caller} reopens and retitles in one request`,
          mayReopen ? "ok" : "invalid_transition",
          () => kit.cases.update(principals[caller], reopened, { statusValue: "in_progress", title: "Back on it" }),
          stored(reopened),
        );
      }
    }
    expect(m.mismatches).toEqual([]);
  });

  it("the reported bypass: assigning oneself a closed case, then reopening it, is refused at the first step", async () => {
    const id = await caseIn("closed");
    expect(await outcomeOf(kit.cases.update(principals.other, id, { assigneeId: principals.other.userId }))).toBe("record_closed");
    expect(await outcomeOf(kit.cases.update(principals.other, id, { statusValue: "in_progress" }))).toBe("invalid_transition");
    expect(await outcomeOf(kit.cases.update(principals.other, id, { statusValue: "in_progress", assigneeId: principals.other.userId }))).toBe("invalid_transition");
    expect((await stored(id)())?.statusValue).toBe("closed");
  });
});

describe("alerts", () => {
  const statuses = ["new", "acknowledged", "closed", "imported"] as const;
  type Status = (typeof statuses)[number];
  const closed = (s: Status) => s === "closed" || s === "imported";
  const settable = ["new", "acknowledged", "closed"] as const;
  const moves: Record<Status, Status[]> = { new: ["acknowledged", "closed"], acknowledged: ["new", "closed"], closed: ["new", "acknowledged"], imported: [] };
  const fields = (caller: Caller): Record<string, unknown> => ({
    title: "Renamed",
    severity: 4,
    description: "More detail",
    tlp: 3,
    pap: 3,
    typeValue: "phishing",
    assigneeId: principals[caller].userId,
    tags: [{ name: "escalated" }],
    customFields: { ticket: 42 },
    eventDate: "2026-02-01T00:00:00.000Z",
  });

  async function alertIn(status: Status): Promise<string> {
    const created = await kit.alerts.create(principals.admin, { title: "Alert", severity: 2, source: "siem", sourceRef: `ref-${++refs}`, assigneeId: assigneeUser.id });
    if (status === "imported") await kit.alerts.promote(principals.admin, created.id, {});
    else if (status !== "new") await kit.alerts.update(principals.admin, created.id, { statusValue: status });
    return created.id;
  }
  const stored = (id: string) => () => kit.storage.read((tx) => tx.alerts.findById(organizationId, id));

  it.each(statuses)("a %s alert: every caller × every field and status move gets what the rule says", async (status) => {
    const m = matrix();
    for (const caller of callers) {
      const mayReopen = caller !== "other";
      for (const [field, value] of Object.entries(fields(caller))) {
        const id = await alertIn(status);
        const noChange = field === "assigneeId" && caller === "assignee";
        await m.cell(`${caller} sets ${field}`, closed(status) && !noChange ? "record_closed" : "ok", () => kit.alerts.update(principals[caller], id, { [field]: value }), stored(id));
      }
      for (const to of settable) {
        const id = await alertIn(status);
        const reopen = closed(status) && !closed(to);
        const expected: Outcome = to !== status && !moves[status].includes(to) ? "invalid_transition" : reopen && !mayReopen ? "invalid_transition" : "ok";
        await m.cell(`${caller} moves to ${to}`, expected, () => kit.alerts.update(principals[caller], id, { statusValue: to }), stored(id));
      }
      const id = await alertIn(status);
      await m.cell(`${caller} resends the stored title`, "ok", () => kit.alerts.update(principals[caller], id, { title: "Alert" }), stored(id));
    }
    expect(m.mismatches).toEqual([]);
  });

  it("bulk assign skips closed and imported alerts as record_closed and assigns the open ones", async () => {
    const ids = await Promise.all(statuses.map((s) => alertIn(s)));
    const result = await kit.alerts.bulkAssign(principals.other, { ids, assigneeId: principals.other.userId });
    expect(result).toMatchObject({ matched: 4, assigned: 2 });
    expect(result.skipped).toEqual([
      { id: ids[2], code: "record_closed" },
      { id: ids[3], code: "record_closed" },
    ]);
    expect((await stored(ids[2]!)())?.assigneeId).toBe(assigneeUser.id);
  });

  it("merging an alert into a resolved or closed case is record_closed; into an open one it works", async () => {
    for (const status of ["resolved", "closed"] as const) {
      const target = (await kit.cases.create(principals.admin, { title: "Done", severity: 2 })).id;
      await kit.cases.update(principals.admin, target, { statusValue: status });
      const alert = await alertIn("new");
      expect(await outcomeOf(kit.alerts.merge(principals.admin, alert, { caseId: target }))).toBe("record_closed");
      expect((await stored(alert)())?.statusValue).toBe("new");
    }
    const open = (await kit.cases.create(principals.admin, { title: "Open", severity: 2 })).id;
    expect(await outcomeOf(kit.alerts.merge(principals.admin, await alertIn("new"), { caseId: open }))).toBe("ok");
  });
});

describe("tasks of a case", () => {
  const statuses = ["new", "in_progress", "on_hold", "resolved", "closed"] as const;
  type Status = (typeof statuses)[number];

  /** A case in `status` with one open, optional task. */
  async function taskOfCaseIn(status: Status): Promise<{ caseId: string; taskId: string }> {
    const caseId = (await kit.cases.create(principals.admin, { title: "Case", severity: 2, assigneeId: assigneeUser.id })).id;
    const taskId = (await kit.tasks.create(principals.admin, caseId, { title: "Collect headers" })).id;
    if (status !== "new") await kit.cases.update(principals.admin, caseId, { statusValue: status });
    return { caseId, taskId };
  }
  const stored = (id: string) => () => kit.storage.read((tx) => tx.tasks.findById(organizationId, id));
  const operations = {
    "adds a task": (p: Principal, r: { caseId: string }) => kit.tasks.create(p, r.caseId, { title: "More" }),
    "renames the task": (p: Principal, r: { taskId: string }) => kit.tasks.update(p, r.taskId, { title: "Renamed" }),
    "completes the task": (p: Principal, r: { taskId: string }) => kit.tasks.update(p, r.taskId, { status: "completed" }),
    "deletes the task": (p: Principal, r: { taskId: string }) => kit.tasks.delete(p, r.taskId),
    "bulk-updates the task": (p: Principal, r: { taskId: string }) => kit.tasks.bulkUpdate(p, { ids: [r.taskId], fields: { title: "Renamed" } }),
    "bulk-deletes the task": (p: Principal, r: { taskId: string }) => kit.tasks.bulkDelete(p, { ids: [r.taskId] }),
  };

  it.each(statuses)("of a %s case: every caller × every task operation gets what the rule says", async (status) => {
    const m = matrix();
    for (const caller of callers) {
      for (const [name, operation] of Object.entries(operations)) {
        const record = await taskOfCaseIn(status);
        const bulk = name.startsWith("bulk");
        // Only a closed case closes its tasks; a resolved one's can still be finished.
        const refused = status === "closed";
        await m.cell(
          `${caller} ${name}`,
          refused && !bulk ? "record_closed" : "ok",
          async () => {
            const result = (await operation(principals[caller], record)) as { skipped?: { code: string }[] };
            if (bulk && refused && result.skipped?.[0]?.code !== "record_closed") throw new Error(`bulk did not skip: ${JSON.stringify(result)}`);
          },
          stored(record.taskId),
        );
      }
    }
    expect(m.mismatches).toEqual([]);
  });

  it("a selectAll bulk over tasks of open and closed cases skips those of the closed one as record_closed", async () => {
    const open = await taskOfCaseIn("in_progress");
    const done = await taskOfCaseIn("closed");
    const result = await kit.tasks.bulkUpdate(principals.admin, { options: { selectAll: true, filters: { caseId: [open.caseId, done.caseId] } }, fields: { title: "Swept" } });
    expect(result).toMatchObject({ matched: 2, updated: 1, skipped: [{ id: done.taskId, code: "record_closed" }] });
    expect((await stored(done.taskId)())?.title).toBe("Collect headers");
  });
});
