import type { H3 } from "h3";
import type { CaseKitOptions, Principal, Scope, StoredApiKey, User, UserRole } from "../../core/index.js";
import { createCaseKitApp } from "../../server/index.js";
import type { AccessLogLine, CaseKitAppOptions } from "../../server/index.js";
import { addKey, addOrganization, addUser, makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

export interface World extends TestKit {
  app: H3;
  logs: AccessLogLine[];
  /** A second organization with its own admin key, for tenant isolation. */
  other: { organizationId: string; adminKey: string; admin: Principal };
  /** An analyst of the first organization, owner of the extra keys below. */
  analyst: User;
  /** Keys of the first organization with one property each. */
  keys: {
    readOnly: string;
    /** TLP clearance 1 (GREEN). */
    lowClearance: string;
    revoked: string;
    suspended: string;
    expired: string;
    ownerDisabled: string;
    ownerLocked: string;
    ownerDeleted: string;
  };
}

/** A kit on in-memory SQLite with two organizations, a set of special keys and an h3 app. */
export async function makeWorld(options: CaseKitAppOptions = {}, kitOptions: Pick<CaseKitOptions, "rateLimits"> = {}): Promise<World> {
  const t = await makeTestKit(kitOptions);
  const logs: AccessLogLine[] = [];
  const app = createCaseKitApp(t.kit, { logger: (line) => logs.push(line), ...options });
  const other = await addOrganization(t.kit, "Other SOC");
  const analyst = await addUser(t.kit, t.organizationId);
  const key = async (overrides: { scopes?: Scope[]; tlpClearance?: number; status?: "revoked" | "suspended"; expiresAt?: string }) =>
    (await addKey(t.kit, analyst, overrides)).secret;
  const ownedBy = async (status: "disabled" | "locked" | "deleted") =>
    (await addKey(t.kit, await addUser(t.kit, t.organizationId, { status }))).secret;

  return {
    ...t,
    app,
    logs,
    other: { organizationId: other.organizationId, adminKey: other.adminKey, admin: other.admin },
    analyst,
    keys: {
      readOnly: await key({ scopes: ["cases:read"] }),
      lowClearance: await key({ tlpClearance: 1 }),
      revoked: await key({ status: "revoked" }),
      suspended: await key({ status: "suspended" }),
      expired: await key({ expiresAt: t.clock.now().toISOString() }),
      ownerDisabled: await ownedBy("disabled"),
      ownerLocked: await ownedBy("locked"),
      ownerDeleted: await ownedBy("deleted"),
    },
  };
}

export const validCase = { title: "Phishing wave against finance", severity: 3 };

/** A new user of the organization and a key of theirs with exactly these scopes. */
export async function userWithKey(
  w: Pick<World, "kit" | "organizationId">,
  options: { role?: UserRole; scopes: Scope[]; tlpClearance?: number; organizationId?: string },
): Promise<{ user: User; secret: string; key: StoredApiKey }> {
  const user = await addUser(w.kit, options.organizationId ?? w.organizationId, { role: options.role ?? "admin" });
  const { secret, key } = await addKey(w.kit, user, { scopes: options.scopes, tlpClearance: options.tlpClearance ?? 4 });
  return { user, secret, key };
}
