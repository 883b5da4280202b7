import { allScopes } from "../access/scopes.js";
import type { CaseKitDeps } from "../context.js";
import { displayStart, generateKeySecret, hashKeySecret } from "../keys/secret.js";
import type { StoredApiKey } from "../keys/types.js";
import { defaultOrganizationPolicy } from "../organizations/policy.js";
import type { Organization } from "../organizations/types.js";
import { boundedString, emailSchema, trimmedText } from "../schema/common.js";
import { generatePassword } from "../users/passwords.js";
import type { StoredUser, User } from "../users/types.js";
import { parse } from "../validation.js";
import { z } from "zod";

const initSchema = z.strictObject({
  organizationName: trimmedText(200),
  email: emailSchema,
  name: trimmedText(200).optional(),
  password: boundedString(1024, 12).optional(),
});

export interface InitResult {
  organization: Organization;
  user: User;
  /** Shown once: stored only as a hash. */
  password: string;
  /** Shown once: stored only as a hash. */
  apiKey: string;
}

/**
 * First-run set-up (`casekit init`): an organization, its first admin user and an admin key with
 * every scope and full TLP clearance, in one transaction.
 */
export function createSetupService(deps: CaseKitDeps) {
  const { storage, clock, ids, config } = deps;

  return {
    async initOrganization(input: z.input<typeof initSchema>): Promise<InitResult> {
      const body = parse(initSchema, input);
      const password = body.password ?? generatePassword();
      const passwordHash = await deps.passwords.hash(password);
      const secret = generateKeySecret(config.keyEnvironment);
      const at = clock.now().toISOString();

      const organization: Organization = {
        id: ids.next("org"),
        name: body.organizationName,
        policy: defaultOrganizationPolicy,
        createdAt: at,
        updatedAt: at,
      };
      const user: StoredUser = {
        id: ids.next("user"),
        organizationId: organization.id,
        email: body.email.toLowerCase(),
        name: body.name ?? body.email,
        role: "admin",
        status: "active",
        tlpClearance: 4,
        passwordHash,
        createdAt: at,
        updatedAt: at,
        createdBy: null,
      };
      const key: StoredApiKey = {
        id: ids.next("key"),
        organizationId: organization.id,
        userId: user.id,
        name: "Initial admin key",
        description: "Created by casekit init",
        // The deployment's first key is unlimited: set-up creates it, not the API, so neither the
        // creator-tier cap nor the default policy (no unlimited keys through the API) applies.
        tier: "unlimited",
        scopes: [...allScopes],
        tlpClearance: 4,
        status: "active",
        expiresAt: null,
        lastUsedAt: null,
        start: displayStart(secret),
        hash: hashKeySecret(secret, config.keyHashSecret),
        createdAt: at,
        updatedAt: at,
        createdBy: user.id,
      };

      await storage.transaction(async (tx) => {
        await tx.organizations.insert(organization);
        await tx.users.insert(user);
        await tx.apiKeys.insert(key);
      });
      const { passwordHash: _hidden, ...publicUser } = user;
      return { organization, user: publicUser, password, apiKey: secret };
    },
  };
}
