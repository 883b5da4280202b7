// casekit/express: the casekit API as Express middleware. Express itself is not imported: the
// middleware is a plain (req, res, next) function over node:http's types.
import type { IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler } from "h3/node";
import type { CaseKit } from "../../core/index.js";
import { createCaseKitApp } from "../app.js";
import type { CaseKitAppOptions } from "../app.js";

export type CaseKitExpressOptions = Omit<CaseKitAppOptions, "handleUnknownPaths">;

/** Express's `RequestHandler` as casekit uses it (any Express 4 or 5 app accepts it). */
export type CaseKitExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * `app.use("/security", caseKitExpress(kit))`: the API at `/security/api/v1/…`, the account area,
 * `/security/livez` and `/security/readyz`; an unknown path under the prefix is a 404 problem,
 * the rest of the app is untouched. Express strips the mount path into `req.baseUrl`, which
 * becomes the base path (see base-path.ts; `options.basePath` wins). Mount it before any body
 * parser: casekit reads and size-limits its own bodies, and a body already read by
 * `express.json()` is answered 500 `body_already_consumed`.
 */
export function caseKitExpress(kit: CaseKit, options: CaseKitExpressOptions = {}): CaseKitExpressMiddleware {
  const handle = toNodeHandler(createCaseKitApp(kit, options));
  return (req, res, next) => {
    // casekit answers every request it is given; only a fault of the bridge itself reaches Express.
    Promise.resolve(handle(req, res)).catch(next);
  };
}
