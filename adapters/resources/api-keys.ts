/**
 * API keys, declared once: both dialects' tables, rows and SQL come from this declaration. The
 * port's ApiKeyRepository is the generic repository plus the lookup by hash with the key's owner,
 * written once for both dialects.
 */
import type { Scope } from "../../core/access/scopes.js";
import type { StoredApiKey } from "../../core/keys/types.js";
import { keyStatuses, keyTiers } from "../../core/keys/types.js";
import type { ApiKeyRepository } from "../../core/ports/storage.js";
import { enumOf, id, int, json, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import { pageLimit } from "../shared/case-filter.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";
import { joinedOrganization } from "./organizations.js";
import { ownerJoin, ownerOf } from "./users.js";

export const apiKeyResource = defineResource({
  table: "api_keys",
  noun: "An API key",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** The owner: the user whose status and role bound the key. */
    userId: text({ references: { table: "users", column: "id" } }),
    name: text(),
    description: text({ nullable: true }),
    tier: enumOf(keyTiers),
    scopes: json<Scope[]>(),
    tlpClearance: int(),
    status: enumOf(keyStatuses),
    expiresAt: timestamp({ nullable: true }),
    lastUsedAt: timestamp({ nullable: true }),
    /** Display prefix of the secret; the secret itself is never stored. */
    start: text(),
    hash: text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
  },
  unique: [{ name: "api_keys_hash_unique", columns: ["hash"], constraint: true, conflict: "An API key with this secret already exists" }],
  // A page is one range of this index, newest first, whatever the filters.
  indexes: [{ name: "api_keys_organization_id_idx", columns: ["organizationId", "id"] }],
  filters: {
    status: { kind: "anyOf", column: "status" },
    tier: { kind: "anyOf", column: "tier" },
    userId: { kind: "equals", column: "userId" },
  },
});

/** Compile-time proof that the declaration stores exactly the core's StoredApiKey. */
export const _apiKeyRecordMatches: Same<RecordOf<typeof apiKeyResource>, StoredApiKey> = true;

/** Every request with a key starts here: one statement, the unique hash index then the owner's primary key. */
export const apiKeyByHashSql = oncePerDialect((dialect: Dialect) => {
  const owner = ownerJoin("api_keys");
  const columns = apiKeyResource.fields.map((f) => `api_keys.${f.name}`).join(", ");
  return `SELECT ${columns}, ${owner.columns} FROM api_keys ${owner.join} WHERE api_keys.hash = ${dialect.param(1)}`;
});

const organizationPrefix = "org_";

/**
 * The same lookup with the key's organization and its access version, in one statement and so one
 * snapshot: the version read is exactly the one the key, owner and policy were read at (see
 * core/access/access-cache.ts). The organization joins by its primary key.
 */
export const apiKeyAccessByHashSql = oncePerDialect((dialect: Dialect) => {
  const owner = ownerJoin("api_keys");
  const columns = apiKeyResource.fields.map((f) => `api_keys.${f.name}`).join(", ");
  return (
    `SELECT ${columns}, ${owner.columns}, ${joinedOrganization.columns(organizationPrefix)}, organizations.access_version AS ${organizationPrefix}access_version ` +
    `FROM api_keys ${owner.join} JOIN organizations ON organizations.id = api_keys.organization_id WHERE api_keys.hash = ${dialect.param(1)}`
  );
});

export function apiKeyRepository(
  keys: DeclaredRepository<StoredApiKey, FilterValues<typeof apiKeyResource>>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): ApiKeyRepository {
  const { reading } = unitGuards(unit);
  const byHash = apiKeyByHashSql(dialect);
  const accessByHash = apiKeyAccessByHashSql(dialect);

  return {
    insert: (key) => keys.insert(key),
    async findByHash(hash) {
      reading();
      const [row] = await executor.all(byHash, [hash]);
      return row ? { key: recordOf<StoredApiKey>(apiKeyResource, row), owner: ownerOf(row) } : null;
    },
    async findAccessByHash(hash) {
      reading();
      const [row] = await executor.all(accessByHash, [hash]);
      if (!row) return null;
      return {
        key: recordOf<StoredApiKey>(apiKeyResource, row),
        owner: ownerOf(row),
        organization: joinedOrganization.read(row, organizationPrefix),
        accessVersion: Number(row[`${organizationPrefix}access_version`]),
      };
    },
    async touchLastUsed(organizationId, id, at) {
      await keys.patchMany(organizationId, [id], { lastUsedAt: at });
    },
    findById: (organizationId, id) => keys.findById(organizationId, id),
    update: (key) => keys.update(key),
    async delete(organizationId, id) {
      await keys.delete(organizationId, id);
    },
    list: (organizationId, filter, page) => keys.list(organizationId, filter, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
  };
}
