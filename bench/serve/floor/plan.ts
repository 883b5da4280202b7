/**
 * The floor's script: the captured calls with the writer's transaction control (BEGIN, COMMIT,
 * END, ROLLBACK, savepoints) left out and replaced by one BEGIN IMMEDIATE … COMMIT around every
 * `batch` captured transactions. A captured transaction ends at a bare COMMIT, END or ROLLBACK on
 * the writer (ROLLBACK TO a savepoint does not end it). Reader calls, their own BEGIN and COMMIT
 * included, stay as captured: they are read snapshots, not the commits being batched.
 */
import type { Recorded } from "./recorded.js";

type Call = Extract<Recorded, { kind: "call" }>;
export type Step = { kind: "begin" } | { kind: "commit" } | { kind: "call"; call: Call };

const control = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const ends = /^\s*(COMMIT|END|ROLLBACK)\s*(TRANSACTION)?\s*;?\s*$/i;

export function replayPlan(calls: readonly Call[], batch: number): { steps: Step[]; captured: number; transactions: number } {
  const steps: Step[] = [];
  let open = false;
  let captured = 0;
  let transactions = 0;
  const commit = () => {
    steps.push({ kind: "commit" });
    open = false;
    transactions += 1;
  };
  for (const call of calls) {
    if (!call.readonly && control.test(call.sql)) {
      if (ends.test(call.sql)) {
        captured += 1;
        if (open && captured % batch === 0) commit();
      }
      continue;
    }
    if (!call.readonly && !open) {
      steps.push({ kind: "begin" });
      open = true;
    }
    steps.push({ kind: "call", call });
  }
  if (open) commit();
  return { steps, captured, transactions };
}
