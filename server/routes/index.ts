import type { ApiRoute } from "../route.js";
import { apiKeyRoutes } from "./api-keys.js";
import { caseRoutes } from "./cases.js";
import { healthRoutes } from "./health.js";
import { openApiRoutes } from "./openapi.js";
import { organizationRoutes } from "./organization.js";
import { teamRoutes } from "./teams.js";
import { tlpRoutes } from "./tlp.js";
import { userRoutes } from "./users.js";

/** The route table of API v1: one row per operation, one file per resource. */
export const apiRoutes: readonly ApiRoute[] = [
  ...caseRoutes,
  ...apiKeyRoutes,
  ...userRoutes,
  ...teamRoutes,
  ...organizationRoutes,
  ...tlpRoutes,
  ...healthRoutes,
  ...openApiRoutes,
];
