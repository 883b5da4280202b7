import type { z } from "zod";
import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { CaseKitError } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { Storage, UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";

/** The repository calls an organization's definitions (custom fields, case types) are read with. */
interface DefinitionRepository<T, F> {
  findById(organizationId: string, id: string): Promise<T | null>;
  list(organizationId: string, filter: F, page: { limit: number; beforeId?: string | undefined }): Promise<T[]>;
}

/**
 * Reading an organization's definitions, the same for each kind: one by id (404 naming the kind
 * otherwise) and pages of them, both with `cases:read` (whoever works on cases may see how the
 * organization shapes them). `query` parses a page query plus the kind's own filter members;
 * `asSeen` gives each definition as the caller may read it (a custom field's default value is
 * withheld below its floor: core/custom-fields/floor.ts).
 */
export function definitionReads<T extends { id: string }, F, Q extends z.ZodType<{ limit: number; cursor?: string | undefined } & F>>(
  storage: Storage,
  noun: string,
  repository: (tx: UnitOfWork) => DefinitionRepository<T, F>,
  query: Q,
  asSeen: (definition: T, principal: Principal) => T = (definition) => definition,
) {
  async function load(tx: UnitOfWork, principal: Principal, id: string): Promise<T> {
    const found = await repository(tx).findById(principal.organizationId, id);
    if (!found) throw new CaseKitError("not_found", `No ${noun} ${id}`);
    return found;
  }
  return {
    load,
    async get(principal: Principal, id: string): Promise<T> {
      requireScope(principal, "cases:read");
      return asSeen(await storage.read((tx) => load(tx, principal, id)), principal);
    },
    async list(principal: Principal, input: unknown): Promise<{ data: T[]; nextCursor: string | null }> {
      requireScope(principal, "cases:read");
      const { limit, cursor, ...filter } = parse(query, input);
      const rows = await storage.read((tx) => repository(tx).list(principal.organizationId, filter as F, { limit: limit + 1, beforeId: decodeCursor(cursor) }));
      const page = toPage(rows, limit);
      return { data: page.data.map((definition) => asSeen(definition, principal)), nextCursor: page.nextCursor };
    },
  };
}
