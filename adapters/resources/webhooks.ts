/**
 * Webhook subscriptions, declared once: both dialects' tables, rows and SQL come from this
 * declaration. The record is the subscription with its grant in columns of its own; the port's
 * WebhookRepository is the generic repository plus the active subscriptions' read, and a delete
 * that takes the subscription's history with it.
 */
import type { Scope } from "../../core/access/scopes.js";
import type { WebhookRepository } from "../../core/ports/storage.js";
import type { WebhookFilters } from "../../core/webhooks/filters.js";
import { webhookAuthTypes, webhookMethods, webhookStatuses } from "../../core/webhooks/schema.js";
import type { Delivery, DeliveryAttempt, StoredWebhook } from "../../core/webhooks/types.js";
import { enumOf, id, int, json, text, timestamp } from "../declare/columns.js";
import type { Dialect, Executor } from "../declare/dialect.js";
import { oncePerDialect } from "../declare/dialect.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { recordOf } from "../declare/rows.js";
import { pageLimit } from "../shared/case-filter.js";
import { webhooksWritten } from "./organization-counters.js";
import type { UnitState } from "../shared/unit-state.js";
import { unitGuards } from "../shared/unit-state.js";
import type { AttemptFilters } from "./webhook-attempts.js";
import type { DeliveryFilters } from "./webhook-deliveries.js";

/** Secrets and authConfig values are sealed by the core before they get here. */
export const webhookResource = defineResource({
  table: "webhooks",
  noun: "A webhook",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    name: text(),
    url: text(),
    events: json<string[]>(),
    description: text({ nullable: true }),
    method: enumOf(webhookMethods),
    authType: enumOf(webhookAuthTypes),
    /** Member names in clear, values sealed. */
    authConfig: json<Record<string, string>>(),
    headers: json<Record<string, string>>(),
    filters: json<WebhookFilters>(),
    retryDelayMs: int(),
    timeoutMs: int(),
    maxRetries: int(),
    tags: json<string[]>(),
    environment: text(),
    status: enumOf(webhookStatuses),
    disabledReason: text({ nullable: true }),
    /** Sealed signing secret, and the sealed previous one while a rotation's grace period lasts. */
    secret: text(),
    secretStart: text(),
    previousSecret: text({ nullable: true }),
    previousSecretExpiresAt: timestamp({ nullable: true }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    createdBy: text({ nullable: true }),
    /**
     * What the subscription was granted when it was created (core/webhooks/grant.ts). Rows older
     * than the columns were backfilled by the migration that added them, hence the defaults.
     */
    grantKeyId: text({ nullable: true }),
    grantTlpClearance: int({ default: 0 }),
    grantScopes: json<Scope[]>({ default: [] }),
  },
  fixed: ["createdAt"],
  indexes: [
    { name: "webhooks_organization_id_idx", columns: ["organizationId", "id"] },
    // Fan-out reads an organization's active subscriptions once per batch of events.
    { name: "webhooks_organization_id_status_idx", columns: ["organizationId", "status"] },
  ],
});

type WebhookRecord = RecordOf<typeof webhookResource>;

/** Compile-time proof that the declaration stores exactly the core's StoredWebhook, its grant flattened. */
type Flattened = Omit<StoredWebhook, "grant"> & { grantKeyId: string | null; grantTlpClearance: number; grantScopes: Scope[] };
export const _webhookRecordMatches: Same<WebhookRecord, Flattened> = true;

export const webhookToRecord = ({ grant, ...webhook }: StoredWebhook): WebhookRecord => ({
  ...webhook,
  grantKeyId: grant.keyId,
  grantTlpClearance: grant.tlpClearance,
  grantScopes: grant.scopes,
});

const webhookFromRecord = ({ grantKeyId, grantTlpClearance, grantScopes, ...webhook }: WebhookRecord): StoredWebhook => ({
  ...webhook,
  grant: { keyId: grantKeyId, tlpClearance: grantTlpClearance, scopes: grantScopes },
});

/** The active subscriptions, oldest first (webhooks_organization_id_status_idx, then a sort). */
const activeSqlFor = oncePerDialect(
  (dialect: Dialect) => `SELECT ${webhookResource.fields.map((f) => f.name).join(", ")} FROM webhooks WHERE organization_id = ${dialect.param(1)} AND status = 'active' ORDER BY id`,
);

/** Every organization with an active subscription (webhooks_organization_id_status_idx). */
const activeOrganizationsSql = "SELECT DISTINCT organization_id FROM webhooks WHERE status = 'active' ORDER BY organization_id";

export function webhookRepository(
  webhooks: DeclaredRepository<WebhookRecord, FilterValues<typeof webhookResource>>,
  deliveries: DeclaredRepository<Delivery, DeliveryFilters>,
  attempts: DeclaredRepository<DeliveryAttempt, AttemptFilters>,
  dialect: Dialect,
  executor: Executor,
  unit: UnitState,
): WebhookRepository {
  const { reading } = unitGuards(unit);
  const active = activeSqlFor(dialect);
  return {
    async insert(webhook) {
      webhooksWritten(unit, webhook.organizationId);
      await webhooks.insert(webhookToRecord(webhook));
    },
    async findById(organizationId, id) {
      const found = await webhooks.findById(organizationId, id);
      return found && webhookFromRecord(found);
    },
    async update(webhook) {
      webhooksWritten(unit, webhook.organizationId);
      return webhooks.update(webhookToRecord(webhook));
    },
    async delete(organizationId, id) {
      webhooksWritten(unit, organizationId);
      // A subscription goes with its history: attempts, then deliveries, then itself (foreign keys).
      await attempts.deleteWhere(organizationId, { webhookId: id });
      await deliveries.deleteWhere(organizationId, { webhookId: id });
      return webhooks.delete(organizationId, id);
    },
    async list(organizationId, page) {
      const found = await webhooks.list(organizationId, {}, { limit: pageLimit(page), order: "desc", after: page.beforeId });
      return found.map(webhookFromRecord);
    },
    async active(organizationId) {
      reading();
      return (await executor.all(active, [organizationId])).map((row) => webhookFromRecord(recordOf<WebhookRecord>(webhookResource, row)));
    },
    async activeOrganizations() {
      reading();
      return (await executor.all(activeOrganizationsSql, [])).map((row) => String(row.organization_id));
    },
  };
}
