import type { z } from "zod";
import { CaseKitError } from "./errors.js";

/** Parses `input` with `schema`, or throws validation_failed listing every problem by path. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // An unknown key is reported at the key's own path, so clients can point at the field.
  const errors = result.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join("."), message: "is not a known field" }))
      : [{ path: issue.path.map(String).join("."), message: issue.message }],
  );
  const first = errors[0];
  const detail = first ? `${first.path ? `${first.path}: ` : ""}${first.message}` : undefined;
  return fail(new CaseKitError("validation_failed", detail, errors));
}

function fail(error: CaseKitError): never {
  throw error;
}
