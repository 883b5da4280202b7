/**
 * Failed sign-ins per email address, declared once: both dialects' tables, rows and SQL come from
 * this declaration. Not tenant data (the address may be nobody's), so no tenant and no foreign
 * key: the row is keyed by the email, and the port's repository is the generic one.
 */
import type { SignInThrottle } from "../../core/account/types.js";
import type { SignInThrottleRepository } from "../../core/ports/storage.js";
import { id, int, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";

export const signInThrottleResource = defineResource({
  table: "sign_in_throttles",
  noun: "A sign-in counter",
  tenant: null,
  columns: {
    email: id({ unsorted: true }),
    failures: int(),
    windowStartedAt: timestamp(),
    blockedUntil: timestamp({ nullable: true }),
  },
});

/** Compile-time proof that the declaration stores exactly the core's SignInThrottle. */
export const _signInThrottleRecordMatches: Same<RecordOf<typeof signInThrottleResource>, SignInThrottle> = true;

export function signInThrottleRepository(throttles: DeclaredRepository<SignInThrottle, FilterValues<typeof signInThrottleResource>>): SignInThrottleRepository {
  return {
    get: (email) => throttles.findById(null, email),
    put: (throttle) => throttles.upsert(throttle),
    async clear(email) {
      await throttles.delete(null, email);
    },
  };
}
