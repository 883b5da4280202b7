import type { WebhookRepository } from "../../core/ports/storage.js";
import { pageLimit } from "../shared/case-filter.js";
import type { WebhookRow } from "../shared/webhook-rows.js";
import { webhookColumns, webhookFromRow, webhookToRow } from "../shared/webhook-rows.js";
import { translateError } from "./errors.js";
import { Conditions } from "./list-query.js";
import type { UnitState } from "./repositories.js";
import type { Statements } from "./statements.js";
import { unitGuards } from "../shared/unit-state.js";

const columns = webhookColumns.join(", ");

const sql = {
  insert: `INSERT INTO webhooks (${columns}) VALUES (${webhookColumns.map((c) => `@${c}`).join(", ")})`,
  byId: `SELECT ${columns} FROM webhooks WHERE organization_id = ? AND id = ?`,
  update: `UPDATE webhooks SET ${webhookColumns
    .filter((c) => c !== "id" && c !== "organization_id" && c !== "created_at")
    .map((c) => `${c} = @${c}`)
    .join(", ")} WHERE organization_id = @organization_id AND id = @id`,
  // A subscription goes with its history: attempts, then deliveries, then itself (foreign keys).
  deleteAttempts: "DELETE FROM webhook_attempts WHERE organization_id = ? AND webhook_id = ?",
  deleteDeliveries: "DELETE FROM webhook_deliveries WHERE organization_id = ? AND webhook_id = ?",
  delete: "DELETE FROM webhooks WHERE organization_id = ? AND id = ?",
  active: `SELECT ${columns} FROM webhooks WHERE organization_id = ? AND status = 'active' ORDER BY id`,
  select: `SELECT ${columns} FROM webhooks`,
} as const;

/** The SQLite WebhookRepository of one unit of work (see createUnitOfWork for `unit`). */
export function createWebhookRepository(statements: Statements, unit: UnitState): WebhookRepository {
  const { reading, writing } = unitGuards(unit);
  const run = (text: string, ...params: unknown[]): number => {
    try {
      return statements.get(text).run(...params).changes;
    } catch (error) {
      throw translateError(error);
    }
  };

  return {
    async insert(webhook) {
      writing();
      run(sql.insert, webhookToRow(webhook));
    },
    async findById(organizationId, id) {
      reading();
      const row = statements.get(sql.byId).get(organizationId, id) as WebhookRow | undefined;
      return row ? webhookFromRow(row) : null;
    },
    async update(webhook) {
      writing();
      const { created_at: _createdAt, ...row } = webhookToRow(webhook);
      return run(sql.update, row) > 0;
    },
    async delete(organizationId, id) {
      writing();
      run(sql.deleteAttempts, organizationId, id);
      run(sql.deleteDeliveries, organizationId, id);
      return run(sql.delete, organizationId, id) > 0;
    },
    async list(organizationId, page) {
      reading();
      const limit = pageLimit(page);
      if (limit === 0) return [];
      const query = new Conditions(organizationId).page(sql.select, limit, page.beforeId);
      return (statements.getDynamic(query.text).all(...query.params) as WebhookRow[]).map(webhookFromRow);
    },
    async active(organizationId) {
      reading();
      return (statements.get(sql.active).all(organizationId) as WebhookRow[]).map(webhookFromRow);
    },
  };
}
