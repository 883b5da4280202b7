/** The declared resources among the exports of some modules (adapters/resources/ for casekit's own). */
import type { Resource } from "../../adapters/declare/resource.js";

/** What `defineResource` returns, recognised by its shape. */
export function isResource(value: unknown): value is Resource {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Resource>;
  return typeof candidate.table === "string" && Array.isArray(candidate.fields) && candidate.byKey instanceof Map && typeof candidate.spec === "object" && candidate.id !== undefined;
}

/** Every resource the modules export, each once, in table order. */
export function declaredResourcesIn(modules: readonly Record<string, unknown>[]): Resource[] {
  const found = new Set(modules.flatMap((module) => Object.values(module).filter(isResource)));
  return [...found].sort((a, b) => (a.table < b.table ? -1 : 1));
}
