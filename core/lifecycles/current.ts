import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { defaultLifecycles } from "./defaults.js";
import type { Lifecycle, LifecycleEntity } from "./types.js";
import { defaultLifecycleKey } from "./types.js";

type Definitions = Pick<CaseKitDeps, "definitions">;

/**
 * The lifecycle `key` of `entity` as the organization has it now: its newest version, the built-in
 * default for `default` while none is published, or null for a named lifecycle never published.
 * Every read of a lifecycle in force goes through here, through the definitions cache
 * (core/definitions/cache.ts); a key naming none is not kept (any key may be asked).
 */
export function findLifecycle(deps: Definitions, tx: UnitOfWork, organizationId: string, entity: LifecycleEntity, key: string = defaultLifecycleKey): Promise<Lifecycle | null> {
  return deps.definitions.read(
    tx,
    organizationId,
    `lifecycle:${entity}:${key}`,
    async () => (await tx.lifecycles.current(organizationId, entity, key)) ?? (key === defaultLifecycleKey ? defaultLifecycles[entity] : null),
    (found) => found !== null,
  );
}

/** The lifecycle the organization's records of `entity` follow (`key`: a named case lifecycle), or 404 naming it. */
export async function lifecycleOf(deps: Definitions, tx: UnitOfWork, organizationId: string, entity: LifecycleEntity, key: string = defaultLifecycleKey): Promise<Lifecycle> {
  const found = await findLifecycle(deps, tx, organizationId, entity, key);
  if (!found) throw new CaseKitError("not_found", `No ${entity} lifecycle ${key}`);
  return found;
}

/** Every lifecycle of `entity` in force: the default first, then the named ones by key (cases only have named ones). */
export async function allLifecyclesOf(deps: Definitions, tx: UnitOfWork, organizationId: string, entity: LifecycleEntity): Promise<Lifecycle[]> {
  // Alerts and tasks have the default one alone: one indexed row, not every version.
  if (entity !== "case") return [await lifecycleOf(deps, tx, organizationId, entity)];
  return deps.definitions.read(tx, organizationId, `lifecycles:${entity}`, async () => {
    const stored = await tx.lifecycles.currentAll(organizationId, entity);
    const named = stored.filter((l) => l.key !== defaultLifecycleKey);
    return [stored.find((l) => l.key === defaultLifecycleKey) ?? defaultLifecycles[entity], ...named];
  });
}
