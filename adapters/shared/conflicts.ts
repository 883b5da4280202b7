import { CaseKitError } from "../../core/errors.js";

/**
 * Human wording for unique-constraint violations, shared by both dialects so a conflict reads the
 * same whatever the database. Keys are `table.column[,column]` (what SQLite reports) and
 * constraint names (what PostgreSQL reports). No SQL, no values: only what clashed.
 */
const details: Record<string, string> = {
  "cases.organization_id,number": "The organization already has a case with this number",
  cases_organization_id_number_unique: "The organization already has a case with this number",
  "tlp_audit_log.organization_id,seq": "The organization's TLP audit log already has an entry at this position",
  tlp_audit_log_organization_id_seq_unique: "The organization's TLP audit log already has an entry at this position",
};

const nouns: Record<string, string> = {
  cases: "A case",
  audit_log: "An audit entry",
  tlp_audit_log: "A TLP audit entry",
};

export interface UniqueViolation {
  table?: string | undefined;
  /** The columns of the violated key, without table qualifiers. */
  columns?: readonly string[] | undefined;
  /** The violated constraint's or index's name, where the driver reports it. */
  constraint?: string | undefined;
}

/** The `conflict` error for a unique-constraint violation, worded for people. */
export function uniqueViolation(violation: UniqueViolation): CaseKitError {
  const { table, columns, constraint } = violation;
  const byColumns = table && columns && columns.length > 0 ? details[`${table}.${columns.join(",")}`] : undefined;
  const byConstraint = constraint ? details[constraint] : undefined;
  const isPrimaryKey = (columns?.length === 1 && columns[0] === "id") || (constraint !== undefined && constraint.endsWith("_pkey"));
  const noun = (table && nouns[table]) ?? "A record";
  const detail = byColumns ?? byConstraint ?? (isPrimaryKey ? `${noun} with this id already exists` : `${noun} with these values already exists`);
  return new CaseKitError("conflict", detail);
}
