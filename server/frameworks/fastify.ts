// casekit/fastify: the casekit API as a Fastify plugin. Fastify's types only, never its code.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { toNodeHandler } from "h3/node";
import type { CaseKit } from "../../core/index.js";
import { createCaseKitApp } from "../app.js";
import type { CaseKitAppOptions } from "../app.js";
import { recordMountPrefix, splitAtPattern } from "../base-path.js";

export type CaseKitFastifyOptions = Omit<CaseKitAppOptions, "handleUnknownPaths">;

/**
 * `await app.register(caseKitFastify(kit), { prefix: "/security" })`: the API at
 * `/security/api/v1/…`, the account area, `/security/livez` and `/security/readyz`; an unknown
 * path under the prefix is a 404 problem. Inside its own (encapsulated) scope the plugin leaves
 * request bodies unread, since casekit reads and size-limits its own, and hands the raw request
 * over with the prefix stripped; the prefix becomes the base path (`options.basePath` wins).
 */
export function caseKitFastify(kit: CaseKit, options: CaseKitFastifyOptions = {}): FastifyPluginAsync {
  const handle = toNodeHandler(createCaseKitApp(kit, options));
  return async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
    const handOver = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack(); // casekit writes the whole response itself
      const raw = request.raw;
      const target = raw.url ?? "/";
      const queryAt = target.indexOf("?");
      const path = queryAt === -1 ? target : target.slice(0, queryAt);
      const { prefix, rest } = splitAtPattern(path, `${scope.prefix}/*`);
      raw.url = rest + (queryAt === -1 ? "" : target.slice(queryAt));
      recordMountPrefix(raw, prefix);
      await handle(raw, reply.raw);
    };
    scope.all("/", handOver);
    scope.all("/*", handOver);
  };
}
