import type { UnitOfWork } from "../ports/storage.js";
import { lifecycleOf } from "./current.js";
import { statusOf, unknownStatus } from "./engine.js";
import type { LifecycleEntity } from "./types.js";

/**
 * A list or selectAll filter on status names statuses of the organization's lifecycle: a status
 * it does not have is a mistake (400 unknown_status at `path`), not an empty page.
 */
export async function checkStatusFilter(tx: UnitOfWork, organizationId: string, entity: LifecycleEntity, values: readonly string[] | undefined, path: string): Promise<void> {
  if (values === undefined || values.length === 0) return;
  const lifecycle = await lifecycleOf(tx, organizationId, entity);
  const unknown = values.find((value) => !statusOf(lifecycle, value));
  if (unknown !== undefined) throw unknownStatus(lifecycle, unknown, path);
}
