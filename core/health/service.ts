import type { Principal } from "../access/principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { z } from "zod";
import { version } from "../version.js";

export const healthSchema = z
  .object({ status: z.string(), service: z.string(), version: z.string(), timestamp: z.string() })
  .meta({ id: "Health" });

export type Health = z.infer<typeof healthSchema>;

/** Spec section 2.5: any valid key may ask; the storage must answer for the status to be ok. */
export function createHealthService(deps: CaseKitDeps) {
  return {
    async check(_principal: Principal): Promise<Health> {
      try {
        await deps.storage.ping();
      } catch {
        throw new CaseKitError("unavailable", "The database does not answer");
      }
      return { status: "ok", service: "casekit", version, timestamp: deps.clock.now().toISOString() };
    },
  };
}
