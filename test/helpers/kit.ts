import { createCaseKit, generateKeySecret, hashKeySecret, ManualClock } from "../../core/index.js";
import type { ApiKey, CaseKit, CaseKitOptions, Principal, Scope, StoredApiKey, StoredUser, User, UserRole } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";
import { fastPasswordHasher } from "./fast-passwords.js";
import { migratedMemoryDatabase } from "./migrated-sqlite.js";

export const keyHashSecret = "test-key-hash-secret-0123456789abcdef";

export interface TestKit {
  kit: CaseKit;
  clock: ManualClock;
  /** The first organization's admin: every scope, TLP 4. */
  admin: Principal;
  adminKey: string;
  organizationId: string;
}

/** A kit on an in-memory SQLite database with a manual clock and one initialised organization. */
export async function makeTestKit(options: Pick<CaseKitOptions, "rateLimits"> = {}): Promise<TestKit> {
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const storage = createSqliteStorage({ database: await migratedMemoryDatabase() });
  await storage.migrate();
  const kit = createCaseKit({ passwordHasher: fastPasswordHasher, storage, clock, config: { keyHashSecret }, ...options });
  const init = await kit.setup.initOrganization({ organizationName: "Acme SOC", email: "admin@acme.test" });
  const admin = await kit.authenticateKey(init.apiKey);
  return { kit, clock, admin, adminKey: init.apiKey, organizationId: init.organization.id };
}

export async function addOrganization(kit: CaseKit, name: string) {
  const init = await kit.setup.initOrganization({ organizationName: name, email: `admin@${name.toLowerCase().replace(/\W+/g, "")}.test` });
  return { organizationId: init.organization.id, admin: await kit.authenticateKey(init.apiKey), adminKey: init.apiKey };
}

let sequence = 0;

/** Inserts a user straight into storage (user management has its own service later). */
export async function addUser(kit: CaseKit, organizationId: string, overrides: Partial<StoredUser> = {}): Promise<User> {
  const at = kit.clock.now().toISOString();
  sequence += 1;
  const user: StoredUser = {
    id: kit.deps.ids.next("user"),
    organizationId,
    email: `user${sequence}@example.test`,
    name: `User ${sequence}`,
    role: "analyst" as UserRole,
    status: "active",
    tlpClearance: 4,
    passwordHash: null,
    createdAt: at,
    updatedAt: at,
    createdBy: null,
    ...overrides,
  };
  await kit.storage.transaction((tx) => tx.users.insert(user));
  return user;
}

/** Inserts a key straight into storage and returns its secret. */
export async function addKey(
  kit: CaseKit,
  owner: User,
  overrides: Partial<Omit<ApiKey, "scopes">> & { scopes?: Scope[] } = {},
): Promise<{ secret: string; key: StoredApiKey }> {
  const secret = generateKeySecret();
  const at = kit.clock.now().toISOString();
  const key: StoredApiKey = {
    id: kit.deps.ids.next("key"),
    organizationId: owner.organizationId,
    userId: owner.id,
    name: "test key",
    description: null,
    tier: "standard",
    scopes: ["cases:read", "cases:write"],
    tlpClearance: 4,
    status: "active",
    expiresAt: null,
    lastUsedAt: null,
    start: secret.slice(0, 12),
    createdAt: at,
    updatedAt: at,
    createdBy: owner.id,
    ...overrides,
    hash: hashKeySecret(secret, kit.deps.config.keyHashSecret),
  };
  await kit.storage.transaction((tx) => tx.apiKeys.insert(key));
  return { secret, key };
}

/** A principal built by hand, for service tests that are not about authentication. */
export function principalFor(base: Principal, overrides: Partial<Principal> & { scopes?: ReadonlySet<Scope> } = {}): Principal {
  return { ...base, ...overrides };
}
