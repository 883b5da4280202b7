import type { UnitOfWork } from "../ports/storage.js";
import { defaultLifecycles } from "./defaults.js";
import type { Lifecycle, LifecycleEntity } from "./types.js";

/** The lifecycle the organization's records of `entity` follow now: its newest version, or the built-in default. */
export async function lifecycleOf(tx: UnitOfWork, organizationId: string, entity: LifecycleEntity): Promise<Lifecycle> {
  return (await tx.lifecycles.current(organizationId, entity)) ?? defaultLifecycles[entity];
}
