import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeTestKit } from "../helpers/kit.js";
import { refusal } from "../helpers/refusal.js";

/** The lifecycle: triage → investigating → waiting_customer (on hold) → contained → closed. */
const statuses = [
  { key: "triage", label: "Triage", category: "new", final: false, color: null },
  { key: "investigating", label: "Investigating", category: "in_progress", final: false, color: null },
  { key: "waiting_customer", label: "Waiting for the customer", category: "on_hold", final: false, color: null },
  { key: "contained", label: "Contained", category: "resolved", final: false, color: null },
  { key: "closed", label: "Closed", category: "closed", final: true, color: null },
];
const transitions = [
  { from: ["triage"], to: "investigating" },
  { from: ["investigating"], to: "waiting_customer", requires: ["reason"] },
  { from: ["waiting_customer"], to: "investigating" },
  { from: ["investigating", "waiting_customer"], to: "contained", requires: ["field:assigneeId", "field:customFields.root_cause"] },
  { from: ["contained"], to: "closed" },
  { from: ["triage", "investigating"], to: "closed", requires: ["reason"] },
];

describe("custom field requirements are lifecycle gates", () => {
  it("the issue's scenario: a case type with two required-on-close fields and a multi_enum; transitions list what is unset, closing is refused until it is set, history of every change", async () => {
    const t = await makeTestKit();
    const admin = t.admin;
    await t.kit.customFields.create(admin, { key: "root_cause", label: "Root cause", scopes: ["case"], type: "text", required: { onClose: true } });
    await t.kit.customFields.create(admin, { key: "lessons", label: "Lessons learned", scopes: ["case"], type: "text", required: { onClose: true } });
    await t.kit.customFields.create(admin, { key: "vectors", label: "Vectors", scopes: ["case"], type: "multi_enum", options: [{ id: "email", label: "Email" }, { id: "web", label: "Web" }] });
    await t.kit.lifecycles.publish(admin, "case", { statuses, transitions });
    // Required on a named transition: the customer contact before waiting on the customer.
    await t.kit.customFields.create(admin, { key: "customer_contact", label: "Customer contact", scopes: ["case"], type: "email", required: { onEnter: ["waiting_customer"] } });
    await t.kit.caseTypes.create(admin, { key: "incident", label: "Incident", customFields: ["root_cause", "lessons", "vectors", "customer_contact"] });

    const c = await t.kit.cases.create(admin, { title: "Phishing wave", severity: 3, typeValue: "incident", customFields: { vectors: ["email", "web"] } });
    expect(c.statusValue).toBe("triage");
    const list = async () => (await t.kit.transitions.list(admin, "case", c.id)).data.map((o) => ({ to: o.to, unmet: o.unmet }));
    expect(await list()).toEqual([
      { to: "investigating", unmet: [] },
      { to: "closed", unmet: ["reason", "field:customFields.root_cause", "field:customFields.lessons"] },
    ]);
    // Closing is refused for exactly what the listing says; fields alone are required_fields_unset.
    expect(await refusal(t.kit.transitions.perform(admin, "case", c.id, { to: "closed" }))).toEqual({
      code: "transition_blocked",
      paths: [],
      unmet: ["reason", "field:customFields.root_cause", "field:customFields.lessons"],
    });
    expect(await refusal(t.kit.transitions.perform(admin, "case", c.id, { to: "closed", reason: "False positive" }))).toEqual({
      code: "required_fields_unset",
      paths: ["customFields.root_cause", "customFields.lessons"],
      unmet: ["field:customFields.root_cause", "field:customFields.lessons"],
    });

    await t.kit.transitions.perform(admin, "case", c.id, { to: "investigating" });
    expect(await list()).toEqual([
      { to: "waiting_customer", unmet: ["reason", "field:customFields.customer_contact"] },
      { to: "contained", unmet: ["field:assigneeId", "field:customFields.root_cause"] },
      { to: "closed", unmet: ["reason", "field:customFields.root_cause", "field:customFields.lessons"] },
    ]);
    expect(await refusal(t.kit.transitions.perform(admin, "case", c.id, { to: "waiting_customer", reason: "Asked for logs" }))).toEqual({
      code: "required_fields_unset",
      paths: ["customFields.customer_contact"],
      unmet: ["field:customFields.customer_contact"],
    });
    await t.kit.transitions.perform(admin, "case", c.id, { to: "waiting_customer", reason: "Asked for logs", fields: { customFields: { vectors: ["email", "web"], customer_contact: "soc@customer.test" } } });
    await t.kit.transitions.perform(admin, "case", c.id, { to: "investigating" });
    const set = { vectors: ["email", "web"], customer_contact: "soc@customer.test", root_cause: "Phished credentials" };
    await t.kit.transitions.perform(admin, "case", c.id, { to: "contained", fields: { assigneeId: admin.userId, customFields: set } });
    expect(await list()).toEqual([{ to: "closed", unmet: ["field:customFields.lessons"] }]);
    // PATCH obeys the same gates as POST …/transitions.
    expect(await refusal(t.kit.cases.update(admin, c.id, { statusValue: "closed" }))).toMatchObject({ code: "required_fields_unset", paths: ["customFields.lessons"] });
    expect((await t.kit.cases.get(admin, c.id)).statusValue).toBe("contained");
    const closed = await t.kit.transitions.perform(admin, "case", c.id, { to: "closed", fields: { customFields: { ...set, lessons: "MFA everywhere" } } });
    expect(closed).toMatchObject({ statusValue: "closed", closedAt: expect.any(String), customFields: { vectors: ["email", "web"], lessons: "MFA everywhere" } });

    const history = (await t.kit.transitions.history(admin, "case", c.id, {})).data;
    expect(history.map((e) => [e.from, e.to, e.toCategory, e.reason])).toEqual([
      [null, "triage", "new", null],
      ["triage", "investigating", "in_progress", null],
      ["investigating", "waiting_customer", "on_hold", "Asked for logs"],
      ["waiting_customer", "investigating", "in_progress", null],
      ["investigating", "contained", "resolved", null],
      ["contained", "closed", "closed", null],
    ]);
  });

  it("a field required on entering names statuses of its scopes' lifecycles; a field gate names a defined field", async () => {
    const t = await makeTestKit();
    const admin = t.admin;
    const create = (key: string, scopes: string[], onEnter: string[]) => t.kit.customFields.create(admin, { key, label: key, scopes, type: "text", required: { onEnter } });
    expect(await refusal(create("a", ["case"], ["contained"]))).toMatchObject({ code: "invalid_field_definition", paths: ["required.onEnter.0"] });
    expect(await refusal(create("b", ["observable"], ["closed"]))).toMatchObject({ code: "invalid_field_definition", paths: ["required.onEnter.0"] });
    // A task status is enough for a field of the case and task scopes (waiting is the task default's).
    expect((await create("c", ["case", "task"], ["waiting", "closed"])).required.onEnter).toEqual(["waiting", "closed"]);
    expect((await t.kit.customFields.list(admin, {})).data.map((d) => d.key)).toEqual(["c"]);
    expect(await refusal(t.kit.lifecycles.publish(admin, "case", { statuses, transitions }))).toMatchObject({ code: "invalid_lifecycle", paths: ["transitions.3.requires.1"] });
  });

  it("for random fields, records and moves: an option listed with nothing unmet is accepted, one with unmet gates is refused with exactly those", async () => {
    const keys = ["f1", "f2", "f3"] as const;
    const entered = ["investigating", "waiting_customer", "contained", "closed"];
    const requirement = fc.record({ onClose: fc.boolean(), onEnter: fc.subarray(entered) });
    const scenario = fc.record({
      required: fc.tuple(requirement, requirement, requirement),
      values: fc.subarray([...keys]),
      assigned: fc.boolean(),
      from: fc.constantFrom("triage", "investigating"),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const t = await makeTestKit();
        const admin = t.admin;
        const ids = [];
        for (const key of keys) ids.push((await t.kit.customFields.create(admin, { key, label: key, scopes: ["case"], type: "text" })).id);
        await t.kit.lifecycles.publish(admin, "case", { statuses, transitions: transitions.map((x) => ({ ...x, requires: x.requires?.map((g) => g.replace("root_cause", "f1")) })) });
        for (const [at, id] of ids.entries()) await t.kit.customFields.update(admin, id, { required: s.required[at] });
        const record = { title: "R", severity: 2, statusValue: s.from, ...(s.assigned ? { assigneeId: admin.userId } : {}), customFields: Object.fromEntries(s.values.map((k) => [k, "set"])) };
        const probe = await t.kit.cases.create(admin, record);
        const options = (await t.kit.transitions.list(admin, "case", probe.id)).data;
        expect(options.length).toBeGreaterThan(0);
        for (const option of options) {
          // The model: the transition's unmet gates, then each unset field required on closing or on entering.
          const transition = transitions.find((x) => x.from.includes(s.from) && x.to === option.to)!;
          const isSet = (gate: string) => (gate === "field:assigneeId" ? s.assigned : gate.startsWith("field:customFields.") ? s.values.includes(gate.slice(19) as (typeof keys)[number]) : false);
          const gates = (transition.requires ?? []).map((g) => g.replace("root_cause", "f1"));
          const required = new Set(keys.filter((_, at) => (option.to === "closed" && s.required[at]!.onClose) || s.required[at]!.onEnter.includes(option.to)).map((key) => `field:customFields.${key}`));
          gates.push(...required);
          expect(option.unmet).toEqual([...new Set(gates)].filter((g) => !isSet(g)));
          const subject = await t.kit.cases.create(admin, record);
          if (option.unmet.length === 0) {
            await t.kit.transitions.perform(admin, "case", subject.id, { to: option.to });
            expect((await t.kit.cases.get(admin, subject.id)).statusValue).toBe(option.to);
          } else {
            const refused = await refusal(t.kit.transitions.perform(admin, "case", subject.id, { to: option.to }));
            expect(refused.unmet).toEqual(option.unmet);
            // Only fields the definitions require: required_fields_unset; any other gate: transition_blocked.
            expect(refused.code).toBe(option.unmet.every((g) => required.has(g)) ? "required_fields_unset" : "transition_blocked");
            expect((await t.kit.cases.get(admin, subject.id)).statusValue).toBe(s.from);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
