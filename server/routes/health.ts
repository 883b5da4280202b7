import { healthSchema } from "../../core/index.js";
import { defineApiRoute } from "../route.js";

export const healthRoutes = [
  defineApiRoute({
    method: "GET",
    path: "/health",
    operationId: "getHealth",
    tag: "Health",
    summary: "Service health",
    description: "Any valid key may ask (spec section 2.5). 503 `unavailable` when the database does not answer.",
    response: healthSchema,
    errors: [503],
    handle: ({ kit, principal }) => kit.health.check(principal),
  }),
];
