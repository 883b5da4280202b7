import type { ErrorCode } from "../../core/index.js";

/** What a refused call said: its code, the paths of its field errors in order, and its unmet gates when it names any. */
export interface Refusal {
  code: ErrorCode;
  paths: string[];
  unmet?: string[];
}

/** Awaits `promise`, expecting a CaseKitError, and returns what it said (throws if it resolved). */
export async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; errors?: { path: string }[]; unmet?: string[] };
    return { code: e.code, paths: (e.errors ?? []).map((x) => x.path), ...(e.unmet ? { unmet: e.unmet } : {}) };
  }
  throw new Error("expected a failure");
}
