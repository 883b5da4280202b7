import type { OrganizationPolicy } from "./policy.js";

/** An organization is a tenant: every other record belongs to exactly one. */
export interface Organization {
  id: string;
  name: string;
  policy: OrganizationPolicy;
  createdAt: string;
  updatedAt: string;
}
