import { definitionsOf } from "./definitions.js";
import type { z } from "zod";
import { archivedAtAfter } from "../definitions/archiving.js";
import { definitionReads } from "../definitions/reads.js";
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import { definitionProblems } from "./definition-rules.js";
import { enteringProblems } from "./entering-rules.js";
import { allLifecyclesOf } from "../lifecycles/current.js";
import { lifecycleEntities } from "../lifecycles/types.js";
import { customFieldsJsonSchema } from "./json-schema.js";
import { redactCustomFields } from "./redact.js";
import { changesBelowFloor, definitionAsSeen, definitionEventTlp } from "./floor.js";
import { customFieldCreateSchema, customFieldListQuerySchema, customFieldSchemaQuerySchema, customFieldUpdateSchema } from "./schema.js";
import type { CustomFieldDefinition } from "./types.js";

/** Most definitions an organization may hold (the storage reads them all on every record write). */
export const maxDefinitions = 500;

/** A new definition from a parsed create body: the route and the configuration import build it alike. */
export function newDefinition(principal: Principal, id: string, body: z.output<typeof customFieldCreateSchema>, now: Date): CustomFieldDefinition {
  const at = now.toISOString();
  return {
    id,
    organizationId: principal.organizationId,
    key: body.key,
    label: body.label,
    description: body.description ?? null,
    scopes: body.scopes,
    type: body.type,
    options: body.options,
    bounds: body.bounds,
    required: body.required,
    defaultValue: body.defaultValue ?? null,
    tlpFloor: body.tlpFloor ?? null,
    filterable: body.filterable,
    archivedAt: null,
    createdAt: at,
    updatedAt: at,
    createdBy: principal.userId,
  };
}

/** A definition after a parsed change; `archived` keeps the first archiving time. */
export function changedDefinition(before: CustomFieldDefinition, patch: Omit<z.output<typeof customFieldUpdateSchema>, "archived">, archived: boolean | undefined, now: Date): CustomFieldDefinition {
  return { ...before, ...patch, archivedAt: archivedAtAfter(before.archivedAt, archived, now), updatedAt: now.toISOString() };
}

/** Custom field definitions: read with `cases:read`, changed by admins (`org:admin`); every change is audited and emitted. */
export function createCustomFieldService(deps: CaseKitDeps) {
  const { storage, clock, ids } = deps;

  const asSeen = (definition: CustomFieldDefinition, principal: Principal) => definitionAsSeen(definition, principal.tlpClearance);
  const reads = definitionReads(storage, "custom field", (tx) => tx.customFields, customFieldListQuerySchema, asSeen);
  const load = reads.load;

  /** A field required on entering statuses names statuses of its scopes' lifecycles (entering-rules.ts). */
  async function checkEntering(tx: UnitOfWork, definition: CustomFieldDefinition): Promise<void> {
    if ((definition.required.onEnter ?? []).length === 0) return;
    // Every lifecycle of every entity: the default ones and the named case lifecycles.
    const lifecycles = (await Promise.all(lifecycleEntities.map((entity) => allLifecyclesOf(deps, tx, definition.organizationId, entity)))).flat();
    const errors = enteringProblems(definition, lifecycles);
    if (errors.length > 0) throw new CaseKitError("invalid_field_definition", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
  }

  function check(definition: CustomFieldDefinition, previous: CustomFieldDefinition | null): void {
    const errors = definitionProblems(definition, previous);
    // Rules between members (options for the type, bounds for the type, a default that fits): 422.
    if (errors.length > 0) throw new CaseKitError("invalid_field_definition", `${errors[0]!.path}: ${errors[0]!.message}`, errors);
  }

  return {
    async create(principal: Principal, input: unknown): Promise<CustomFieldDefinition> {
      requireScope(principal, "org:admin");
      const body = parse(customFieldCreateSchema, input);
      const now = clock.now();
      const definition = newDefinition(principal, ids.next("cfd"), body, now);
      check(definition, null);
      return storage.transaction(async (tx) => {
        if ((await definitionsOf(deps, tx, principal.organizationId)).length >= maxDefinitions) {
          throw new CaseKitError("conflict", `An organization defines at most ${maxDefinitions} custom fields`);
        }
        await checkEntering(tx, definition);
        await tx.customFields.insert(definition);
        await recordChange(deps, tx, principal, { name: "custom_field.created", resourceType: "custom_field", before: null, after: definition, tlp: definitionEventTlp(null, definition), now });
        return asSeen(definition, principal);
      });
    },

    async update(principal: Principal, id: string, input: unknown): Promise<CustomFieldDefinition> {
      requireScope(principal, "org:admin");
      const { archived, ...patch } = parse(customFieldUpdateSchema, input);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        const after = changedDefinition(before, patch, archived, now);
        const hidden = changesBelowFloor(before, after, principal.tlpClearance);
        if (hidden.length > 0) throw new CaseKitError("validation_failed", `${hidden[0]!.path}: ${hidden[0]!.message}`, hidden);
        check(after, before);
        await checkEntering(tx, after);
        await tx.customFields.update(after);
        await recordChange(deps, tx, principal, { name: "custom_field.updated", resourceType: "custom_field", before, after, tlp: definitionEventTlp(before, after), now });
        return asSeen(after, principal);
      });
    },

    get: reads.get,
    list: reads.list,

    /** The organization's JSON Schema of one scope's `customFields` (the fields the caller is cleared for). */
    async schema(principal: Principal, query: unknown): Promise<Record<string, unknown>> {
      requireScope(principal, "cases:read");
      const { scope } = parse(customFieldSchemaQuerySchema, query);
      const definitions = await storage.read((tx) => definitionsOf(deps, tx, principal.organizationId));
      return customFieldsJsonSchema(definitions, scope, principal.tlpClearance);
    },

    /** A record's values as the caller may see them (embedders that read records themselves). */
    redact: redactCustomFields,
  };
}

export type CustomFieldService = ReturnType<typeof createCustomFieldService>;
