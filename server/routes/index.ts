import type { ApiRoute } from "../route.js";
import { alertRoutes } from "./alerts.js";
import { apiKeyRoutes } from "./api-keys.js";
import { auditEventRoutes } from "./audit-events.js";
import { auditSinkRoutes } from "./audit-sinks.js";
import { caseRoutes } from "./cases.js";
import { caseTypeRoutes } from "./case-types.js";
import { configurationRoutes } from "./configuration.js";
import { customFieldRoutes } from "./custom-fields.js";
import { commentRoutes } from "./comments.js";
import { healthRoutes } from "./health.js";
import { lifecycleRoutes } from "./lifecycles.js";
import { observableRoutes } from "./observables.js";
import { openApiRoutes } from "./openapi.js";
import { organizationRoutes } from "./organization.js";
import { taskRoutes } from "./tasks.js";
import { teamRoutes } from "./teams.js";
import { tlpRoutes } from "./tlp.js";
import { userRoutes } from "./users.js";
import { webhookRoutes } from "./webhooks.js";

/** The route table of API v1: one row per operation, one file per resource. */
export const apiRoutes: readonly ApiRoute[] = [
  ...caseRoutes,
  ...alertRoutes,
  ...taskRoutes,
  ...observableRoutes,
  ...commentRoutes,
  ...lifecycleRoutes,
  ...apiKeyRoutes,
  ...userRoutes,
  ...teamRoutes,
  ...customFieldRoutes,
  ...caseTypeRoutes,
  ...configurationRoutes,
  ...webhookRoutes,
  ...organizationRoutes,
  ...tlpRoutes,
  ...auditEventRoutes,
  ...auditSinkRoutes,
  ...healthRoutes,
  ...openApiRoutes,
];
