import { and, asc, desc, eq, lt } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { WebhookRepository } from "../../core/ports/storage.js";
import { pageLimit } from "../shared/case-filter.js";
import type { WebhookRow } from "../shared/webhook-rows.js";
import { webhookFromRow, webhookToRow } from "../shared/webhook-rows.js";
import { guard } from "./errors.js";
import type { UnitState } from "./repositories.js";
import { rowSelection, rowValues } from "./rows.js";
import { webhookAttempts, webhookDeliveries, webhooks } from "./schema.js";
import { unitGuards } from "../shared/unit-state.js";

/** Compile-time proof that the table's columns are exactly the shared row's keys. */
type ColumnNames = { [K in keyof (typeof webhooks)["_"]["columns"]]: (typeof webhooks)["_"]["columns"][K]["_"]["name"] }[keyof (typeof webhooks)["_"]["columns"]];
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
export const _webhookColumnsMatch: Same<ColumnNames, keyof WebhookRow> = true;

const webhookRow = rowSelection(webhooks);
const toRecord = (row: Record<string, unknown>) => webhookFromRow(row as unknown as WebhookRow);

/** The PostgreSQL WebhookRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createWebhookRepository(db: NodePgDatabase, unit: UnitState): WebhookRepository {
  const { reading, writing } = unitGuards(unit);
  const own = (organizationId: string, id: string) => and(eq(webhooks.organizationId, organizationId), eq(webhooks.id, id));

  return {
    async insert(webhook) {
      writing();
      await guard(db.insert(webhooks).values(rowValues(webhooks, webhookToRow(webhook))));
    },
    async findById(organizationId, id) {
      reading();
      const rows = await guard(db.select(webhookRow).from(webhooks).where(own(organizationId, id)).limit(1));
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async update(webhook) {
      writing();
      const { id: _id, organization_id: _organizationId, created_at: _createdAt, ...row } = webhookToRow(webhook);
      const written = await guard(db.update(webhooks).set(rowValues(webhooks, row)).where(own(webhook.organizationId, webhook.id)).returning({ id: webhooks.id }));
      return written.length > 0;
    },
    async delete(organizationId, id) {
      writing();
      // A subscription goes with its history: attempts, then deliveries, then itself (foreign keys).
      await guard(db.delete(webhookAttempts).where(and(eq(webhookAttempts.organizationId, organizationId), eq(webhookAttempts.webhookId, id))));
      await guard(db.delete(webhookDeliveries).where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.webhookId, id))));
      const deleted = await guard(db.delete(webhooks).where(own(organizationId, id)).returning({ id: webhooks.id }));
      return deleted.length > 0;
    },
    async list(organizationId, page) {
      reading();
      const limit = pageLimit(page);
      if (limit === 0) return [];
      const keyset = page.beforeId === undefined ? [] : [lt(webhooks.id, page.beforeId)];
      const rows = await guard(
        db
          .select(webhookRow)
          .from(webhooks)
          .where(and(eq(webhooks.organizationId, organizationId), ...keyset))
          .orderBy(desc(webhooks.id))
          .limit(limit),
      );
      return rows.map(toRecord);
    },
    async active(organizationId) {
      reading();
      const rows = await guard(
        db
          .select(webhookRow)
          .from(webhooks)
          .where(and(eq(webhooks.organizationId, organizationId), eq(webhooks.status, "active")))
          .orderBy(asc(webhooks.id)),
      );
      return rows.map(toRecord);
    },
  };
}
