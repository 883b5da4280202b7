import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { requireUserChange } from "../access/user-changes.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { decodeCursor, toPage } from "../pagination.js";
import type { UnitOfWork } from "../ports/storage.js";
import { parse } from "../validation.js";
import { generatePassword } from "./passwords.js";
import { userCreateSchema, userListQuerySchema, userUpdateSchema } from "./schema.js";
import type { StoredUser, User, UserStatus } from "./types.js";

export function toPublicUser(stored: StoredUser): User {
  const { passwordHash: _hash, ...user } = stored;
  return user;
}

/** `deleted` is final; the other statuses move freely between each other. */
function canChangeStatus(from: UserStatus, to: UserStatus): boolean {
  return from === to || from !== "deleted";
}

/**
 * Users of the caller's organization. Reading needs `users:read`, changing needs `users:write`,
 * and every create or change obeys `requireUserChange` (core/access/user-changes.ts): nobody
 * grants, or changes a user who holds, more than they hold; nobody changes their own role, status
 * or clearance; setting a password needs `org:admin`. A new password or status ends the user's
 * sessions in the same unit of work.
 */
export function createUserService(deps: CaseKitDeps) {
  const { storage, clock, ids } = deps;

  async function load(tx: UnitOfWork, principal: Principal, id: string): Promise<StoredUser> {
    const user = await tx.users.findById(principal.organizationId, id);
    if (!user) throw new CaseKitError("not_found", `No user ${id}`);
    return user;
  }

  return {
    async list(principal: Principal, query: unknown): Promise<{ data: User[]; nextCursor: string | null }> {
      requireScope(principal, "users:read");
      const { limit, cursor, email, ...filters } = parse(userListQuerySchema, query);
      const rows = await storage.read((tx) =>
        tx.users.list(
          principal.organizationId,
          { ...filters, ...(email ? { email: email.toLowerCase() } : {}) },
          { limit: limit + 1, beforeId: decodeCursor(cursor) },
        ),
      );
      return toPage(rows.map(toPublicUser), limit);
    },

    async get(principal: Principal, id: string): Promise<User> {
      requireScope(principal, "users:read");
      return toPublicUser(await storage.read((tx) => load(tx, principal, id)));
    },

    async create(principal: Principal, input: unknown): Promise<User & { password?: string }> {
      requireScope(principal, "users:write");
      const body = parse(userCreateSchema, input);
      const tlpClearance = body.tlpClearance ?? principal.tlpClearance;
      requireUserChange(principal, { before: null, after: { role: body.role, status: "active", tlpClearance }, setsPassword: false });
      const password = body.password ?? generatePassword();
      const passwordHash = await deps.passwords.hash(password);
      const now = clock.now();
      const at = now.toISOString();
      const stored: StoredUser = {
        id: ids.next("user"),
        organizationId: principal.organizationId,
        email: body.email.toLowerCase(),
        name: body.name,
        role: body.role,
        status: "active",
        tlpClearance,
        passwordHash,
        createdAt: at,
        updatedAt: at,
        createdBy: principal.userId,
      };
      const user = toPublicUser(stored);
      await storage.transaction(async (tx) => {
        await tx.users.insert(stored);
        await recordChange(deps, tx, principal, { name: "user.created", resourceType: "user", before: null, after: user, tlp: null, now });
      });
      return body.password ? user : { ...user, password };
    },

    async update(principal: Principal, id: string, input: unknown): Promise<User> {
      requireScope(principal, "users:write");
      const patch = parse(userUpdateSchema, input);
      const passwordHash = patch.password ? await deps.passwords.hash(patch.password) : undefined;
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await load(tx, principal, id);
        const { password: _password, ...fields } = patch;
        requireUserChange(principal, { before, after: { ...before, ...fields }, setsPassword: passwordHash !== undefined });
        if (patch.status && !canChangeStatus(before.status, patch.status)) {
          throw new CaseKitError("invalid_transition", "A deleted user cannot come back");
        }
        const after: StoredUser = {
          ...before,
          ...fields,
          ...(passwordHash ? { passwordHash } : {}),
          updatedAt: now.toISOString(),
        };
        await tx.users.update(after);
        // A new password or status ends the user's sessions with the change, all or nothing.
        if (passwordHash !== undefined || after.status !== before.status) await tx.sessions.deleteForUser(before.organizationId, before.id);
        await recordChange(deps, tx, principal, {
          name: "user.updated",
          resourceType: "user",
          before: toPublicUser(before),
          after: toPublicUser(after),
          tlp: null,
          now,
        });
        return toPublicUser(after);
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
