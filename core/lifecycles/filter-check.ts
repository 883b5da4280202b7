import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import { allLifecyclesOf } from "./current.js";
import type { LifecycleEntity } from "./types.js";

/**
 * A list or selectAll filter on status names statuses of the organization's lifecycles of the
 * entity (for cases: the default one and every named one): a status none has is a mistake (400
 * unknown_status at `path`), not an empty page.
 */
export async function checkStatusFilter(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, organizationId: string, entity: LifecycleEntity, values: readonly string[] | undefined, path: string): Promise<void> {
  if (values === undefined || values.length === 0) return;
  const keys = new Set((await allLifecyclesOf(deps, tx, organizationId, entity)).flatMap((lifecycle) => lifecycle.statuses.map((status) => status.key)));
  const unknown = values.find((value) => !keys.has(value));
  if (unknown === undefined) return;
  const message = `${unknown} is not a status of the organization's ${entity} lifecycles (${[...keys].join(", ")})`;
  throw new CaseKitError("unknown_status", `${path}: ${message}`, [{ path, message }]);
}
