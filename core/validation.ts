import type { z } from "zod";
import { CaseKitError } from "./errors.js";
import type { FieldError } from "./errors.js";
import { tooLarge } from "./schema/free-form.js";
import { inputProblems } from "./schema/well-formed.js";

/**
 * Parses `input` with `schema`, or throws validation_failed listing every problem by path.
 * Every input first passes the rules no schema may forget (schema/well-formed.ts): no NUL or
 * unpaired surrogate in any string or key, no nesting deeper than maxInputDepth.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const problems = inputProblems(input);
  if (problems.length > 0) return fail(validationFailed(problems));
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // An unknown key is reported at the key's own path, so clients can point at the field; a
  // refused member name of a record says why, not zod's "Invalid key in record".
  const errors = firstPerPath(
    result.error.issues.flatMap((issue) =>
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join("."), message: "is not a known field" }))
        : [{ path: issue.path.map(String).join("."), message: issue.code === "invalid_key" && issue.issues[0] ? `its name ${issue.issues[0].message}` : issue.message }],
    ),
  );
  // Only a size no schema can state is wrong (free-form.ts): answered as a body over the limit.
  const sizeOnly = result.error.issues.every((issue) => issue.code === "custom" && issue.params?.casekitCode === tooLarge.casekitCode);
  return fail(sizeOnly ? new CaseKitError("payload_too_large", errors[0] ? `${errors[0].path}: ${errors[0].message}` : undefined, errors) : validationFailed(errors));
}

/** One problem per field (the first check that failed): a URL of the wrong scheme is not also "not a URL". */
function firstPerPath(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => !seen.has(error.path) && Boolean(seen.add(error.path)));
}

function validationFailed(errors: FieldError[]): CaseKitError {
  const first = errors[0];
  const detail = first ? `${first.path ? `${first.path}: ` : ""}${first.message}` : undefined;
  return new CaseKitError("validation_failed", detail, errors);
}

function fail(error: CaseKitError): never {
  throw error;
}
