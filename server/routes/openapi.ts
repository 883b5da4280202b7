import { z } from "zod";
import { apiBasePath, defineApiRoute } from "../route.js";

/** The top of an OpenAPI 3.1 document; the rest is described by the OpenAPI specification itself. */
export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "OpenApiDocument", description: "An OpenAPI 3.1 document: https://spec.openapis.org/oas/v3.1.0" });

export const openApiRoutes = [
  defineApiRoute({
    method: "GET",
    path: "/openapi.json",
    operationId: "getOpenApiDocument",
    tag: "Meta",
    summary: "This API's OpenAPI 3.1 document",
    description:
      "Generated at start-up from the zod schemas that validate requests. Public, so the reference page at `/api/v1/docs` and code generators can load it without a key: it describes the API every deployment serves and holds no tenant data.",
    public: true,
    response: openApiDocumentSchema,
    handle: ({ openapi, basePath }) => ({
      ...openapi,
      // The API's own address as clients reach it, so a mounted app documents its prefix.
      servers: [{ url: basePath + apiBasePath }],
    }),
  }),
];
