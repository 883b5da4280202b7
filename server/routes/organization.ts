import { z } from "zod";
import { organizationPolicySchema, organizationPolicyUpdateSchema } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

/** The organization as the core returns it. (The core has no response schema for it yet.) */
export const organizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    policy: organizationPolicySchema,
    createdAt: z.string().meta({ format: "date-time" }),
    updatedAt: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "Organization" });

export const organizationRoutes = [
  defineApiRoute({
    method: "GET",
    path: "/organization",
    operationId: "getOrganization",
    tag: "Organizations",
    summary: "The caller's organization and its policy",
    description: "Any valid key may read its own organization.",
    response: organizationSchema,
    handle: ({ kit, principal }) => kit.organizations.get(principal),
  }),
  defineApiRoute({
    method: "PATCH",
    path: "/organization/policy",
    operationId: "updateOrganizationPolicy",
    tag: "Organizations",
    summary: "Change the organization's policy",
    description:
      "Send only the settings to change. The policy only narrows access: it applies to keys created from then on (clearance, tiers, expiry) and to case sharing and rate limits at once.",
    scope: "org:admin",
    body: organizationPolicyUpdateSchema,
    response: organizationSchema,
    handle: ({ kit, principal, body }) => kit.organizations.updatePolicy(principal, body),
  }),
];
