import type { Principal } from "../access/principal.js";
import { requireScope } from "../access/principal.js";
import { recordChange } from "../audit/record-change.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { parse } from "../validation.js";
import { organizationPolicyUpdateSchema } from "./policy.js";
import type { Organization } from "./types.js";

/**
 * The caller's own organization: any authenticated caller may read it; `org:admin` changes its
 * policy. A policy change moves the organization's access version in its own transaction (a
 * database trigger), so every host's access cache sees it from the next request on.
 */
export function createOrganizationService(deps: CaseKitDeps) {
  const { storage, clock } = deps;

  return {
    async get(principal: Principal): Promise<Organization> {
      const organization = await storage.read((tx) => tx.organizations.findById(principal.organizationId));
      if (!organization) throw new CaseKitError("not_found", "No such organization");
      return organization;
    },

    async updatePolicy(principal: Principal, input: unknown): Promise<Organization> {
      requireScope(principal, "org:admin");
      const patch = parse(organizationPolicyUpdateSchema, input);
      const now = clock.now();
      return storage.transaction(async (tx) => {
        const before = await tx.organizations.findById(principal.organizationId);
        if (!before) throw new CaseKitError("not_found", "No such organization");
        const after: Organization = { ...before, policy: { ...before.policy, ...patch }, updatedAt: now.toISOString() };
        await tx.organizations.update(after);
        await recordChange(deps, tx, principal, { name: "organization.updated", resourceType: "organization", before, after, tlp: null, now });
        return after;
      });
    },
  };
}
