import { z } from "zod";
import { tlpAuditListSchema, tlpAuditQuerySchema, tlpConstantsSchema } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

/** core/tlp/chain.ts ChainVerdict as a schema. (The core has no schema for it yet.) */
export const chainVerdictSchema = z
  .object({
    ok: z.boolean(),
    checked: z.int().meta({ description: "How many entries were checked" }),
    firstBad: z
      .object({
        id: z.string().nullable().meta({ description: "The entry, or null when entries are missing from the end" }),
        seq: z.int(),
        reason: z.enum(["hash", "link", "sequence", "missing"]),
      })
      .optional()
      .meta({ description: "The first entry whose content, link or position does not match; absent when ok" }),
  })
  .meta({ id: "TlpChainVerdict" });

export const tlpRoutes = [
  defineApiRoute({
    method: "GET",
    path: "/tlp/audit-logs",
    operationId: "listTlpAuditLogs",
    tag: "TLP",
    summary: "TLP access and change audit entries",
    description:
      "Newest first, keyset-paged. Every view, edit and change of a TLP-marked record, allowed or denied, with actor, key, the record's effective TLP before and after (its own marking or an ancestor's, whichever is higher), and request origin. Entries whose TLP before or after is above the reader's clearance are left out. `actorId` matches a user id or a key id; `from` is inclusive, `to` exclusive.",
    scope: "audit:read",
    query: tlpAuditQuerySchema,
    response: tlpAuditListSchema,
    handle: ({ kit, principal, query }) => kit.tlp.auditLogs(principal, query),
  }),
  defineApiRoute({
    method: "GET",
    path: "/tlp/audit-logs/verify",
    operationId: "verifyTlpAuditLogs",
    tag: "TLP",
    summary: "Verify the TLP audit chain",
    description: "Recomputes the organization's hash chain and names the first entry that was changed, removed or reordered.",
    scope: "audit:read",
    response: chainVerdictSchema,
    handle: ({ kit, principal }) => kit.tlp.verify(principal),
  }),
  defineApiRoute({
    method: "GET",
    path: "/tlp/constants",
    operationId: "getTlpConstants",
    tag: "TLP",
    summary: "TLP and PAP levels",
    description: "Labels, descriptions, colours and the enforcement policy of each level (FIRST TLP 2.0). Any valid key may read them.",
    response: tlpConstantsSchema,
    handle: ({ kit, principal }) => kit.tlp.constants(principal),
  }),
];
