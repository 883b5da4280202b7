/**
 * An organization's definitions as one JSON document, so its setup can live in Git: the default
 * lifecycles, the named case lifecycles, case types and custom fields. Export
 * drops ids and timestamps (keys are the identities) and sorts by key; import applies a whole
 * document in one unit of work with the rules and writes of each definition's own route. It
 * never deletes what the document omits (a field or type missing from a file is more often an
 * older file than an intent to delete). Every problem is collected by JSON path and any one
 * rolls the whole unit back. An entry equal to what is stored is left alone and not checked
 * again, as no route checks it again: putting back an export always succeeds.
 */
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import { changedCaseType, newCaseType } from "../case-types/service.js";
import type { CaseType } from "../case-types/types.js";
import type { CaseKitDeps } from "../context.js";
import { definitionProblems } from "../custom-fields/definition-rules.js";
import { enteringProblems, fieldGateProblems } from "../custom-fields/entering-rules.js";
import { changedDefinition, maxDefinitions, newDefinition } from "../custom-fields/service.js";
import { belowFloor, changesBelowFloor, definitionAsSeen, definitionEventTlp } from "../custom-fields/floor.js";
import type { CustomFieldDefinition } from "../custom-fields/types.js";
import type { FieldError } from "../errors.js";
import { CaseKitError } from "../errors.js";
import { allLifecyclesOf, findLifecycle, lifecycleOf } from "../lifecycles/current.js";
import { allCaseTypes } from "../case-types/all.js";
import { definitionsOf } from "../custom-fields/definitions.js";
import { lifecycleSwitchProblems, unknownLifecycle } from "../case-types/lifecycle-rules.js";
import type { Lifecycle } from "../lifecycles/types.js";
import { lifecycleKeyOf } from "../lifecycles/case-lifecycle.js";
import { defaultLifecycleKey } from "../lifecycles/types.js";
import { createLifecyclePublisher } from "../lifecycles/service.js";
import { lifecycleEntities } from "../lifecycles/types.js";
import { checkDefinition } from "../lifecycles/validate.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import type { Configuration, ConfigurationChanges, ConfigurationDocument } from "./schema.js";
import { configurationDocumentSchema } from "./schema.js";
import { canonicalJson } from "../log/chain.js";

type FieldEntry = ConfigurationDocument["customFields"][number];
type TypeEntry = ConfigurationDocument["caseTypes"][number];

const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);


/** A definition as the document states it: nulls left out where the create body leaves them out. */
function fieldEntry(d: CustomFieldDefinition): FieldEntry {
  return {
    key: d.key,
    label: d.label,
    ...(d.description === null ? {} : { description: d.description }),
    scopes: d.scopes,
    type: d.type,
    options: d.options,
    bounds: d.bounds,
    required: { ...d.required, onEnter: d.required.onEnter ?? [] },
    ...(d.defaultValue === null ? {} : { defaultValue: d.defaultValue as FieldEntry["defaultValue"] }),
    ...(d.tlpFloor === null ? {} : { tlpFloor: d.tlpFloor }),
    filterable: d.filterable,
    archived: d.archivedAt !== null,
  };
}

function typeEntry(t: CaseType): TypeEntry {
  return {
    key: t.key,
    label: t.label,
    ...(t.description === null ? {} : { description: t.description }),
    ...(t.defaultTlp === null ? {} : { defaultTlp: t.defaultTlp }),
    ...(t.defaultPap === null ? {} : { defaultPap: t.defaultPap }),
    ...(t.defaultSeverity === null ? {} : { defaultSeverity: t.defaultSeverity }),
    customFields: t.customFields,
    ...(t.lifecycle === null ? {} : { lifecycle: t.lifecycle }),
    archived: t.archivedAt !== null,
  };
}

/** A rule's errors, their paths placed under `prefix`. */
function under(prefix: string, errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => ({ path: e.path ? `${prefix}.${e.path}` : prefix, message: e.message }));
}

function rulesOf(prefix: string, check: () => void): FieldError[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof CaseKitError) return under(prefix, error.errors ?? [{ path: "", message: error.message }]);
    throw error;
  }
}

export function createConfigurationService(deps: CaseKitDeps) {
  const { storage, clock, ids } = deps;
  const { publishWithin } = createLifecyclePublisher(deps);

  /** The organization's named case lifecycles (every case lifecycle but the default one). */
  async function namedCaseLifecycles(tx: UnitOfWork, organizationId: string): Promise<Lifecycle[]> {
    return (await allLifecyclesOf(deps, tx, organizationId, "case")).filter((l) => l.key !== defaultLifecycleKey);
  }

  /**
   * The export leaves `mapping` out: it belongs to one publication, not to the setup. A field's
   * default value is left out for a caller below its floor (core/custom-fields/floor.ts).
   */
  async function exportIn(tx: UnitOfWork, organizationId: string, clearance: number): Promise<Configuration> {
    const lifecycles = {} as Configuration["lifecycles"];
    for (const entity of lifecycleEntities) {
      const current = await lifecycleOf(deps, tx, organizationId, entity);
      lifecycles[entity] = { statuses: current.statuses, transitions: current.transitions };
    }
    const named = await namedCaseLifecycles(tx, organizationId);
    const caseLifecycles = named.sort(byKey).map((l) => ({ key: l.key, statuses: l.statuses, transitions: l.transitions }));
    const fields = [...(await definitionsOf(deps, tx, organizationId))].sort(byKey).map((d) => fieldEntry(definitionAsSeen(d, clearance)));
    const types = [...(await allCaseTypes(deps, tx, organizationId))].sort(byKey).map(typeEntry);
    return { version: 1, lifecycles, caseLifecycles, caseTypes: types, customFields: fields };
  }

  return {
    /** The organization's definitions; reading them needs `org:admin`, as changing them does. */
    async export(principal: Principal): Promise<Configuration> {
      requireScope(principal, "org:admin");
      return storage.read((tx) => exportIn(tx, principal.organizationId, principal.tlpClearance));
    },

    async import(principal: Principal, input: unknown): Promise<ConfigurationChanges> {
      requireScope(principal, "org:admin");
      const document = parse(configurationDocumentSchema, input);
      const org = principal.organizationId;
      const errors: FieldError[] = [];
      const repeated = (section: "caseTypes" | "customFields" | "caseLifecycles") => {
        const seen = new Set<string>();
        document[section].forEach((entry, index) => {
          if (seen.has(entry.key)) errors.push({ path: `${section}.${index}.key`, message: `repeats the key ${entry.key}` });
          seen.add(entry.key);
        });
      };
      repeated("customFields");
      repeated("caseTypes");
      repeated("caseLifecycles");
      for (const entity of lifecycleEntities) errors.push(...rulesOf(`lifecycles.${entity}`, () => checkDefinition(entity, document.lifecycles[entity])));
      document.caseLifecycles.forEach((entry, index) => errors.push(...rulesOf(`caseLifecycles.${index}`, () => checkDefinition("case", entry))));
      const now = clock.now();
      const changes: ConfigurationChanges = {
        lifecycles: { case: "unchanged", alert: "unchanged", task: "unchanged" },
        caseLifecycles: { published: [], unchanged: [] },
        caseTypes: { created: [], updated: [], unchanged: [] },
        customFields: { created: [], updated: [], unchanged: [] },
      };
      return storage.transaction(async (tx) => {
        // The case lifecycles as the document leaves them: its named ones over the stored ones.
        const finalNamed = new Map<string, Lifecycle>((await namedCaseLifecycles(tx, org)).map((l) => [l.key, l]));
        for (const entry of document.caseLifecycles) finalNamed.set(entry.key, { entity: "case", key: entry.key, version: 0, statuses: entry.statuses, transitions: entry.transitions });
        // A field required on entering a status names a status of the lifecycles the document leaves.
        const documentLifecycles: Lifecycle[] = [...lifecycleEntities.map((entity) => ({ entity, key: defaultLifecycleKey, version: 0, ...document.lifecycles[entity] })), ...finalNamed.values()];
        // Fields first: case types and lifecycle gates name them.
        const existingFields = new Map((await definitionsOf(deps, tx, org)).map((d) => [d.key, d]));
        // The fields as the document leaves them, written or not: what lifecycle gates may name.
        const finalFields = new Map(existingFields);
        for (const [index, entry] of document.customFields.entries()) {
          const { archived, key, type, ...rest } = entry;
          const before = existingFields.get(key);
          if (!before) {
            const created = changedDefinition(newDefinition(principal, ids.next("cfd"), entry, now), {}, archived, now);
            finalFields.set(key, created);
            errors.push(...under(`customFields.${index}`, [...definitionProblems(created, null), ...enteringProblems(created, documentLifecycles)]));
            if (errors.length > 0) continue;
            await tx.customFields.insert(created);
            await recordChange(deps, tx, principal, { name: "custom_field.created", resourceType: "custom_field", before: null, after: created, tlp: definitionEventTlp(null, created), now });
            changes.customFields.created.push(key);
            continue;
          }
          if (before.type !== type) {
            errors.push({ path: `customFields.${index}.type`, message: `a field's type never changes (${key} is ${before.type})` });
            continue;
          }
          // Below the field's floor the export left its default out: a document without one keeps it.
          const keptDefault = belowFloor(before, principal.tlpClearance) && rest.defaultValue === undefined ? (before.defaultValue as FieldEntry["defaultValue"]) : null;
          const patch = { ...rest, description: rest.description ?? null, defaultValue: rest.defaultValue ?? keptDefault, tlpFloor: rest.tlpFloor ?? null };
          const after = changedDefinition(before, patch, archived, now);
          finalFields.set(key, after);
          if (canonicalJson(fieldEntry(after)) === canonicalJson(fieldEntry(before))) {
            changes.customFields.unchanged.push(key);
            continue;
          }
          errors.push(
            ...under(`customFields.${index}`, [...changesBelowFloor(before, after, principal.tlpClearance), ...definitionProblems(after, before), ...enteringProblems(after, documentLifecycles)]),
          );
          if (errors.length > 0) continue;
          await tx.customFields.update(after);
          await recordChange(deps, tx, principal, { name: "custom_field.updated", resourceType: "custom_field", before, after, tlp: definitionEventTlp(before, after), now });
          changes.customFields.updated.push(key);
        }
        // Read again: this unit's own writes moved the definitions version, so the cache reads them.
        const allFields = await definitionsOf(deps, tx, org);
        if (allFields.length > maxDefinitions) errors.push({ path: "customFields", message: `an organization defines at most ${maxDefinitions} custom fields` });
        const caseFields = new Set(allFields.filter((d) => d.scopes.includes("case")).map((d) => d.key));

        const existingTypes = new Map((await allCaseTypes(deps, tx, org)).map((t) => [t.key, t]));
        for (const [index, entry] of document.caseTypes.entries()) {
          const { archived, key, ...rest } = entry;
          entry.customFields.forEach((field, at) => {
            if (!caseFields.has(field)) errors.push({ path: `caseTypes.${index}.customFields.${at}`, message: `${JSON.stringify(field)} is not a case custom field of your organization` });
          });
          // A type's lifecycle: default, or a named one stored or in the document.
          const lifecycleKey = lifecycleKeyOf(entry);
          const target = lifecycleKey === defaultLifecycleKey ? documentLifecycles[0]! : finalNamed.get(lifecycleKey);
          if (!target) errors.push(...unknownLifecycle(lifecycleKey, `caseTypes.${index}.lifecycle`).errors!);
          const before = existingTypes.get(key);
          if (!before) {
            const created = changedCaseType(newCaseType(principal, ids.next("ctype"), entry, now), {}, archived, now);
            if (errors.length > 0) continue;
            await tx.caseTypes.insert(created);
            await recordChange(deps, tx, principal, { name: "case_type.created", resourceType: "case_type", before: null, after: created, tlp: null, now });
            changes.caseTypes.created.push(key);
            continue;
          }
          const patch = {
            ...rest,
            description: rest.description ?? null,
            defaultTlp: rest.defaultTlp ?? null,
            defaultPap: rest.defaultPap ?? null,
            defaultSeverity: rest.defaultSeverity ?? null,
            lifecycle: rest.lifecycle ?? null,
          };
          const after = changedCaseType(before, patch, archived, now);
          if (canonicalJson(typeEntry(after)) === canonicalJson(typeEntry(before))) {
            changes.caseTypes.unchanged.push(key);
            continue;
          }
          // Its cases must have their statuses in the lifecycle it moves them to, as the document leaves it.
          if (target && lifecycleKeyOf(before) !== lifecycleKey) {
            const from = await lifecycleOf(deps, tx, org, "case", lifecycleKeyOf(before));
            errors.push(...(await lifecycleSwitchProblems(deps, tx, org, key, from, target, `caseTypes.${index}.lifecycle`)));
          }
          if (errors.length > 0) continue;
          await tx.caseTypes.update(after);
          await recordChange(deps, tx, principal, { name: "case_type.updated", resourceType: "case_type", before, after, tlp: null, now });
          changes.caseTypes.updated.push(key);
        }

        // Checked here too so that a gate naming no field is listed beside every other problem.
        for (const entity of lifecycleEntities) errors.push(...under(`lifecycles.${entity}`, fieldGateProblems(entity, document.lifecycles[entity], [...finalFields.values()])));
        document.caseLifecycles.forEach((entry, index) => errors.push(...under(`caseLifecycles.${index}`, fieldGateProblems("case", entry, [...finalFields.values()]))));
        for (const entity of lifecycleEntities) {
          const wanted = document.lifecycles[entity];
          const current = await lifecycleOf(deps, tx, org, entity);
          if (unchangedLifecycle(current, wanted)) continue;
          if (errors.length > 0) continue;
          const problems = await rulesOfAsync(`lifecycles.${entity}`, () => publishWithin(tx, principal, entity, wanted, now));
          errors.push(...problems);
          changes.lifecycles[entity] = "published";
        }
        // Named case lifecycles after the types: a remap moves the cases of the types as the document leaves them.
        for (const [index, entry] of document.caseLifecycles.entries()) {
          const current = await findLifecycle(deps, tx, org, "case", entry.key);
          if (current && unchangedLifecycle(current, entry)) {
            changes.caseLifecycles.unchanged.push(entry.key);
            continue;
          }
          if (errors.length > 0) continue;
          const { key, ...body } = entry;
          errors.push(...(await rulesOfAsync(`caseLifecycles.${index}`, () => publishWithin(tx, principal, "case", body, now, key))));
          changes.caseLifecycles.published.push(key);
        }
        // Any problem: the unit rolls back, so a bad document changes nothing.
        if (errors.length > 0) throw new CaseKitError("invalid_configuration", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
        return changes;
      });
    },
  };
}

async function rulesOfAsync(prefix: string, run: () => Promise<unknown>): Promise<FieldError[]> {
  try {
    await run();
    return [];
  } catch (error) {
    if (error instanceof CaseKitError && error.code === "invalid_lifecycle") return under(prefix, error.errors ?? [{ path: "", message: error.message }]);
    throw error;
  }
}

export type ConfigurationService = ReturnType<typeof createConfigurationService>;

/** A document's lifecycle that would publish nothing: the same statuses and transitions, no mapping. */
function unchangedLifecycle(current: Pick<Lifecycle, "statuses" | "transitions">, wanted: Pick<Lifecycle, "statuses" | "transitions"> & { mapping: Record<string, string> }): boolean {
  return canonicalJson({ s: current.statuses, t: current.transitions }) === canonicalJson({ s: wanted.statuses, t: wanted.transitions }) && Object.keys(wanted.mapping).length === 0;
}
