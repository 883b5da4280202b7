/**
 * Issue 12, item 4, as a property: for random trees of cases and alerts, their tasks and
 * observables, and comments on any of them, with random markings, and a random clearance, every
 * read path and every webhook payload shows a record if and only if its effective TLP (the
 * highest of its own marking and every ancestor's) is within the clearance. The oracle below
 * computes the effective TLP plainly from the tree; the core must agree everywhere.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Principal, Scope } from "../../core/index.js";
import { createSealer } from "../../core/index.js";
import type { OutboundRequest } from "../../core/ports/outbound.js";
import { createDispatcher } from "../../core/webhooks/dispatcher.js";
import { addKey, addUser, keyHashSecret, makeTestKit } from "../helpers/kit.js";

type Kind = "case" | "alert" | "task" | "observable" | "comment";

interface CommentSpec {
  kind: "comment";
}
interface ChildSpec {
  kind: "task" | "observable";
  tlp: number;
  comments: CommentSpec[];
}
interface RootSpec {
  kind: "case" | "alert";
  tlp: number;
  children: ChildSpec[];
  comments: CommentSpec[];
}

const tlp = fc.integer({ min: 0, max: 4 });
const comments = fc.array(fc.constant<CommentSpec>({ kind: "comment" }), { maxLength: 2 });
const child = fc.record<ChildSpec>({ kind: fc.constantFrom("task", "observable"), tlp, comments });
const root = fc.record<RootSpec>({ kind: fc.constantFrom("case", "alert"), tlp, children: fc.array(child, { maxLength: 3 }), comments });
const trees = fc.array(root, { minLength: 1, maxLength: 3 });

/** One record made from the tree, with the effective TLP the oracle expects. */
interface Made {
  kind: Kind;
  id: string;
  effective: number;
  parent: { kind: "case" | "alert" | "task"; id: string } | null;
}

const readScopes: Scope[] = ["cases:read", "alerts:read", "tasks:read", "observables:read", "audit:read"];

async function check(tree: RootSpec[], clearance: number): Promise<void> {
  const t = await makeTestKit();
  const { kit, admin } = t;
  const owner = await addUser(kit, t.organizationId, { role: "admin", tlpClearance: 4 });
  const { secret } = await addKey(kit, owner, { scopes: [...readScopes, "cases:write", "tasks:write", "webhooks:write", "webhooks:read"], tlpClearance: clearance });
  const reader: Principal = await kit.authenticateKey(secret);
  await kit.webhooks.create(reader, { name: "Everything", url: "https://hooks.example.com/all", events: ["*"] });

  const made: Made[] = [];
  let n = 0;
  for (const r of tree) {
    const rootRecord =
      r.kind === "case"
        ? await kit.cases.create(admin, { title: `case ${n++}`, severity: 2, tlp: r.tlp })
        : await kit.alerts.create(admin, { title: `alert ${n++}`, source: "prop", sourceRef: `ref-${n}`, severity: 2, tlp: r.tlp });
    made.push({ kind: r.kind, id: rootRecord.id, effective: r.tlp, parent: null });
    const rootRef = { kind: r.kind, id: rootRecord.id };
    const commentOn = async (parent: { kind: "case" | "alert" | "task"; id: string }, effective: number, specs: CommentSpec[]) => {
      for (const _ of specs) {
        const comment = await kit.comments.create(admin, parent, { body: `comment ${n++}` });
        made.push({ kind: "comment", id: comment.id, effective, parent });
      }
    };
    await commentOn(rootRef, r.tlp, r.comments);
    for (const c of r.children) {
      const effective = Math.max(c.tlp, r.tlp);
      // Tasks belong to cases only; under an alert the child is an observable.
      if (c.kind === "task" && r.kind === "case") {
        const task = await kit.tasks.create(admin, rootRecord.id, { title: `task ${n++}`, tlp: c.tlp });
        made.push({ kind: "task", id: task.id, effective, parent: rootRef });
        await commentOn({ kind: "task", id: task.id }, effective, c.comments);
      } else {
        const observable = await kit.observables.create(admin, rootRef, { dataType: "domain", data: `o${n++}.example`, tlp: c.tlp });
        made.push({ kind: "observable", id: observable.id, effective, parent: rootRef });
      }
    }
  }
  const visible = (m: Made) => m.effective <= clearance;
  const ids = (kind: Kind, where: (m: Made) => boolean = () => true) =>
    made
      .filter((m) => m.kind === kind && visible(m) && where(m))
      .map((m) => m.id)
      .sort();
  const sorted = (page: { data: { id: string }[] }) => page.data.map((r) => r.id).sort();
  const refused = (promise: Promise<unknown>) =>
    promise.then(
      () => "shown",
      (e: { code?: string }) => e.code,
    );

  // Direct reads: shown iff within the clearance, else 403 tlp_restricted.
  const get = { case: kit.cases.get, alert: kit.alerts.get, task: kit.tasks.get, observable: kit.observables.get, comment: kit.comments.get } as const;
  for (const m of made) {
    expect(await refused(get[m.kind](reader, m.id)), `${m.kind} at effective TLP ${m.effective}`).toBe(visible(m) ? "shown" : "tlp_restricted");
  }

  // Organization-wide lists.
  expect(sorted(await kit.cases.list(reader, { limit: 500 }))).toEqual(ids("case"));
  expect(sorted(await kit.alerts.list(reader, { limit: 500 }))).toEqual(ids("alert"));
  expect(sorted(await kit.tasks.list(reader, { limit: 500 }))).toEqual(ids("task"));
  expect(sorted(await kit.observables.list(reader, { limit: 500 }))).toEqual(ids("observable"));

  // Lists under a parent: refused when the parent is above the clearance, else its visible children.
  for (const parent of made.filter((m) => m.kind !== "observable" && m.kind !== "comment")) {
    const ref = { kind: parent.kind as "case" | "alert" | "task", id: parent.id };
    const under = (m: Made) => m.parent?.id === parent.id;
    const threads = kit.comments.listOf(reader, ref, { limit: 500 });
    if (!visible(parent)) {
      expect(await refused(threads)).toBe("tlp_restricted");
      continue;
    }
    expect(sorted(await threads)).toEqual(ids("comment", under));
    if (ref.kind === "case") expect(sorted(await kit.tasks.listOf(reader, ref.id, { limit: 500 }))).toEqual(ids("task", under));
    if (ref.kind !== "task") expect(sorted(await kit.observables.listOf(reader, { kind: ref.kind, id: ref.id }, { limit: 500 }))).toEqual(ids("observable", under));
  }

  // Webhook payloads: the subscription was made by the reader's key; each record's creation
  // event carries the record iff it is within the clearance, else only its id and TLP.
  const sent: OutboundRequest[] = [];
  const dispatcher = createDispatcher(kit.deps, {
    transport: { send: async (request) => (sent.push(request), { status: 200, retryAfter: null, body: "", durationMs: 1 }) },
    unseal: createSealer(keyHashSecret).unseal,
  });
  while ((await dispatcher.step()).events > 0);
  const created = new Map(
    sent
      .map((r) => JSON.parse(r.body) as { type: string; data: { id: string; redacted?: boolean; tlp?: number } })
      .filter((b) => b.type.endsWith(".created"))
      .map((b) => [b.data.id, b.data]),
  );
  for (const m of made) {
    const data = created.get(m.id);
    expect(data, `${m.kind} created event`).toBeDefined();
    if (visible(m)) expect(data!.redacted, `${m.kind} at ${m.effective}`).toBeUndefined();
    else expect(data, `${m.kind} at ${m.effective}`).toEqual({ id: m.id, resourceType: m.kind, tlp: m.effective, redacted: true });
  }

  // The TLP audit log names nothing above the reader, and records the effective TLP of each entry.
  const hidden = new Set(made.filter((m) => !visible(m)).map((m) => m.id));
  const effectiveOf = new Map(made.map((m) => [m.id, m.effective]));
  const log = await kit.tlp.auditLogs(reader, { limit: 500 });
  for (const entry of log.data) {
    expect(hidden.has(entry.resourceId)).toBe(false);
    if (effectiveOf.has(entry.resourceId) && entry.tlpAfter !== null) expect(entry.tlpAfter).toBe(effectiveOf.get(entry.resourceId));
  }

  // Bulk: every task named, those above the clearance skipped as tlp_restricted.
  const tasks = made.filter((m) => m.kind === "task");
  if (tasks.length > 0) {
    const result = await kit.tasks.bulkUpdate(reader, { ids: tasks.map((m) => m.id), fields: { status: "in_progress" } });
    expect(result.skipped.filter((s) => s.code === "tlp_restricted").map((s) => s.id).sort()).toEqual(tasks.filter((m) => !visible(m)).map((m) => m.id).sort());
  }
}

describe("effective TLP, as a property over random trees", () => {
  it("every read path and every webhook payload shows a record iff its effective TLP is within the clearance", async () => {
    await fc.assert(
      fc.asyncProperty(trees, fc.integer({ min: 0, max: 4 }), (tree, clearance) => check(tree, clearance)),
      { numRuns: 40 },
    );
  }, 120_000);
});
