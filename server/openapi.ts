import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { errorTitles, version } from "../core/index.js";
import type { ErrorCode } from "../core/index.js";
import { wellFormedTextPattern } from "../core/schema/well-formed.js";
import { createExampleBuilder } from "./openapi-examples.js";
import { pathIdSchema } from "./path-ids.js";
import { httpStatusOf, problemSchema } from "./problem.js";
import { apiBasePath, routeTemplate } from "./route.js";
import type { ApiRoute, RouteDoc } from "./route.js";
import { apiRoutes } from "./routes/index.js";

type JsonObject = Record<string, unknown>;

export interface OpenApiDocument extends JsonObject {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string }[];
  tags: { name: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, JsonObject>>;
  components: {
    schemas: Record<string, JsonObject>;
    responses: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
}

export interface OpenApiOptions {
  /** The route table to describe; casekit's own by default. */
  routes?: readonly ApiRoute[];
  /** The API's address, for `servers`; `/api/v1` by default. */
  serverUrl?: string;
}

const statusNames: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  408: "RequestTimeout",
  409: "Conflict",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  422: "UnprocessableContent",
  429: "TooManyRequests",
  431: "RequestHeaderFieldsTooLarge",
  500: "InternalError",
  503: "Unavailable",
};

const keySecuritySchemes: Record<string, JsonObject> = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "ck_<env>_<random>_<checksum>",
    description: "`Authorization: Bearer <key>` (recommended). Send exactly one credential.",
  },
  apiKeyHeader: {
    type: "apiKey",
    in: "header",
    name: "X-Api-Key",
    description: "`X-Api-Key: <key>`. Send exactly one credential; credentials in the query string are refused.",
  },
};

/**
 * Builds the OpenAPI 3.1 document from the route table and the core's zod schemas.
 *
 * Each schema is converted on its own with `z.toJSONSchema` (JSON Schema 2020-12, which OpenAPI
 * 3.1 uses as is): request bodies and query parameters in their input form (defaults make fields
 * optional), responses in their output form. Every schema with a `.meta({ id })` comes back in
 * `$defs`; those are hoisted into `components.schemas` under their id and `#/$defs/<id>` references
 * are rewritten to `#/components/schemas/<id>`. An id whose input and output forms differ is a
 * start-up error, not a silently wrong document.
 */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  return buildDocument({
    routes: options.routes ?? apiRoutes,
    serverUrl: options.serverUrl ?? apiBasePath,
    title: "casekit API",
    description: [
      "Security case management. Every endpoint but this document itself (`GET /openapi.json`, public) requires an API key, sent in exactly one of `Authorization: Bearer <key>` or `X-Api-Key: <key>`. A reference page rendered from this document is served at `/api/v1/docs`.",
      "Errors are RFC 9457 problem details (`application/problem+json`) whose `type` is `https://casekit.dev/problems/<code>`.",
      "Every response carries `X-Request-Id`.",
      "People manage their own keys in the account area, `/account` beside `/api/v1` (a session cookie instead of a key); it is described in its own document, `/account/openapi.json`.",
    ].join("\n\n"),
    securitySchemes: keySecuritySchemes,
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    metered: true,
    // OpenAPI 3.1 lets non-OAuth schemes list required roles: we list the scope.
    isPublic: (route) => (route as ApiRoute).public === true,
    operationSecurity: (route): Record<string, string[]>[] | undefined => {
      if ((route as ApiRoute).public) return [];
      // Alternatives: any one requirement of the list satisfies it.
      if (route.scope && route.alsoScopes) {
        const all = [route.scope, ...route.alsoScopes];
        return [{ bearerAuth: all }, { apiKeyHeader: all }];
      }
      const scopes = route.scope ? [route.scope] : route.parentScopes;
      return scopes?.flatMap((scope): Record<string, string[]>[] => [{ bearerAuth: [scope] }, { apiKeyHeader: [scope] }]);
    },
    accessNote: (route) =>
      (route as ApiRoute).public
        ? "Public: no key needed (a key sent along is ignored), and not rate-limited."
        : route.scope
        ? route.alsoScopes
          ? `Requires the scopes ${[route.scope, ...route.alsoScopes].map((s) => `\`${s}\``).join(" and ")}.`
          : `Requires the scope \`${route.scope}\`.`
        : route.parentScopes
          ? `Requires the scope of the record's parent: one of ${route.parentScopes.map((s) => `\`${s}\``).join(", ")}.`
          : "Any valid key may call it.",
    challengeDescription: 'Bearer challenge: `Bearer realm="casekit"` plus `error="invalid_token"` unless no credential was sent',
  });
}

/** Everything that differs between the API's document and the account area's. */
export interface DocumentSpec {
  routes: readonly RouteDoc[];
  serverUrl: string;
  title: string;
  description: string;
  securitySchemes: Record<string, JsonObject>;
  /** The document's default security requirement. */
  security: Record<string, string[]>[];
  /** An operation's own requirement (`[]` for none at all), or undefined for the default. */
  operationSecurity(route: RouteDoc): Record<string, string[]>[] | undefined;
  /** One sentence about who may call the operation, appended to its description. */
  accessNote(route: RouteDoc): string;
  /** What the WWW-Authenticate header of a 401 says. */
  challengeDescription: string;
  /** Every operation is rate-limited per key: it may answer 429, and answers carry X-RateLimit-*. */
  metered?: boolean;
  /** An operation anyone may call: no 401 or 429, no rate-limit headers. */
  isPublic?(route: RouteDoc): boolean;
}

/** The rate-limit headers of every authenticated API answer (README "Rate limits"). */
const rateLimitHeaders: Record<string, JsonObject> = {
  RateLimitLimit: { description: "The limit of the window that binds: the burst for the per-minute rate, or the hourly cap", schema: { type: "integer" } },
  RateLimitRemaining: { description: "Requests left in that window; never negative", schema: { type: "integer" } },
  RateLimitReset: { description: "Unix time (seconds) at which that window is fully restored", schema: { type: "integer" } },
};

function rateLimitHeaderRefs(): Record<string, JsonObject> {
  return {
    "X-RateLimit-Limit": { $ref: "#/components/headers/RateLimitLimit" },
    "X-RateLimit-Remaining": { $ref: "#/components/headers/RateLimitRemaining" },
    "X-RateLimit-Reset": { $ref: "#/components/headers/RateLimitReset" },
  };
}

export function buildDocument(spec: DocumentSpec): OpenApiDocument {
  const schemas = createSchemaCollector();
  schemas.add(problemSchema, "output");
  // Answers first, so a shared component keeps its plain name for the answer's shape and an input
  // form that differs (see createSchemaCollector) is the one named `…Input`.
  for (const route of spec.routes) schemas.add(route.response, "output");

  const paths: OpenApiDocument["paths"] = {};
  for (const route of spec.routes) {
    const path = routeTemplate(route.path);
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route, schemas, spec);
  }
  addExamples(paths, schemas.components);

  return {
    openapi: "3.1.0",
    info: {
      title: spec.title,
      version,
      description: spec.description,
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: spec.serverUrl }],
    tags: [...new Set(spec.routes.map((r) => r.tag))].map((name) => ({ name, ...(tagDescriptions[name] ? { description: tagDescriptions[name] } : {}) })),
    security: spec.security,
    paths,
    components: {
      schemas: schemas.components,
      responses: usedOnly(problemResponses(spec.challengeDescription, spec.metered ?? false), paths),
      headers: {
        RequestId: { description: "Identifies this request in the server's logs", schema: { type: "string" } },
        ...(spec.metered ? rateLimitHeaders : {}),
      },
      securitySchemes: spec.securitySchemes,
    },
  };
}

function operationOf(route: RouteDoc, schemas: SchemaCollector, spec: DocumentSpec): JsonObject {
  const parameters: JsonObject[] = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    description: name === "key" ? "A key of this kind; any other shape names nothing (404)" : "An id of this kind; any other shape names no record (404)",
    schema: pathIdSchema(route.path, name!),
  }));
  if (route.query) parameters.push(...queryParameters(schemas.add(route.query, "input")));

  const open = spec.isPublic?.(route) ?? false;
  const metered = (spec.metered ?? false) && !open;
  const errors = new Set<number>([500, ...(open ? [] : [401]), ...(metered ? [429] : []), ...(route.errors ?? [])]);
  if (route.body) [400, 413, 415].forEach((s) => errors.add(s));
  if (route.query) errors.add(400);
  if (route.scope || route.parentScopes) errors.add(403);
  if (route.path.includes(":")) errors.add(404);

  const responses: JsonObject = {
    "200": {
      description: "OK",
      headers: { "X-Request-Id": { $ref: "#/components/headers/RequestId" }, ...(metered ? rateLimitHeaderRefs() : {}) },
      content: responseContent(route, schemas),
    },
  };
  for (const status of route.statuses ?? []) {
    responses[String(status)] = { ...(responses["200"] as JsonObject), description: status === 201 ? "Created" : "OK" };
  }
  for (const status of [...errors].sort((a, b) => a - b)) {
    const name = statusNames[status];
    if (!name) throw new Error(`No response component for status ${status} (route ${route.operationId})`);
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }

  const security = spec.operationSecurity(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: [route.description, spec.accessNote(route)].filter(Boolean).join("\n\n"),
    tags: [route.tag],
    ...(security ? { security } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { "application/json": { schema: schemas.add(route.body, "input") } } } }
      : {}),
    responses,
  };
}

/** Every request body and success answer gets an example (openapi-examples.ts), streamed ones as their text. */
function addExamples(paths: OpenApiDocument["paths"], components: Record<string, JsonObject>): void {
  const exampleOf = createExampleBuilder(components);
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    const bodies = [operation.requestBody, ...Object.entries(operation.responses as JsonObject).filter(([status]) => status.startsWith("2")).map(([, r]) => r)] as (JsonObject | undefined)[];
    for (const body of bodies) {
      const content = body?.content as Record<string, JsonObject> | undefined;
      const media = content?.["application/json"];
      if (media && media.example === undefined) media.example = exampleOf(media.schema as JsonObject);
      // A streamed answer's example is its text: one record as a line, or as one event.
      const ndjson = content?.["application/x-ndjson"];
      if (ndjson && ndjson.example === undefined) ndjson.example = `${JSON.stringify(exampleOf(ndjson["x-item-schema"] as JsonObject))}\n`;
      const events = content?.["text/event-stream"];
      if (events && events.example === undefined) {
        const record = exampleOf(events["x-item-schema"] as JsonObject) as { seq?: unknown };
        events.example = `id: ${typeof record.seq === "number" ? record.seq : 1}\ndata: ${JSON.stringify(record)}\n\n`;
      }
    }
  }
}

/** One query parameter per property of the (object) query schema; a repeated parameter is an array. */
function queryParameters(objectSchema: JsonObject): JsonObject[] {
  const properties = (objectSchema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((objectSchema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...schema } = property;
    return {
      name,
      in: "query",
      required: required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      style: "form",
      explode: true,
      schema,
    };
  });
}

/**
 * What each tag groups, for the reference page's headings. A tag missing here fails
 * `npm run openapi:lint` (rule tag-description): a new resource says what it is.
 */
const tagDescriptions: Record<string, string> = {
  Cases: "Investigations: the record everything else hangs from. Lifecycle, assignment, TLP and sharing.",
  Alerts: "Signals from detection tools, ingested idempotently per (source, sourceRef); promoted to a case or merged into one.",
  Tasks: "Work items of a case; a case does not close while a mandatory task is open.",
  Observables: "Indicators (IP, domain, hash…) on cases and alerts, deduplicated per parent and searchable across the organization.",
  Comments: "Discussion on cases, alerts and tasks.",
  Workflows: "Each organization's lifecycles of cases, alerts and tasks; a record's transitions and status history.",
  "Bulk Operations": "Many records in one transaction, chosen by ids or by the list filters.",
  Metrics: "Aggregates for dashboards, within the caller's TLP clearance.",
  "API Keys": "Scoped, TLP-bounded keys of the organization (admin).",
  Users: "People of the organization.",
  Teams: "Groups of users that cases can be shared with.",
  "Custom Fields": "Typed fields an organization defines for its cases, alerts, tasks and observables, and the JSON Schema of their values.",
  "Case Types": "The kinds of case an organization works: what `typeValue` names, with default markings and the custom fields that apply.",
  Organizations: "The caller's organization and its policy.",
  TLP: "Traffic Light Protocol constants and the tamper-evident TLP audit log.",
  Audit: "Who changed what, when and what it was before: one hash-chained, append-only event per change, searchable by actor, action, target and case.",
  Webhooks: "Signed event deliveries with retries and a delivery history.",
  Health: "Liveness of the API and its database, for a valid key.",
  Meta: "What describes the API itself.",
  Account: "A person's own session and keys.",
};

/** Only the reusable responses some operation refers to (405, say, is a path's answer, not an operation's). */
function usedOnly(responses: Record<string, JsonObject>, paths: OpenApiDocument["paths"]): Record<string, JsonObject> {
  const text = JSON.stringify(paths);
  return Object.fromEntries(Object.entries(responses).filter(([name]) => text.includes(`"#/components/responses/${name}"`)));
}

/** One reusable response per error status, listing the codes that produce it. */
function problemResponses(challengeDescription: string, metered: boolean): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(httpStatusOf) as [ErrorCode, number][]) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, JsonObject> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const name = statusNames[status];
    if (!name) throw new Error(`No response component name for status ${status}`);
    out[name] = {
      description: codes.map((code) => `\`${code}\`: ${errorTitles[code]}`).join("; "),
      headers: {
        "X-Request-Id": { $ref: "#/components/headers/RequestId" },
        // Authenticated answers are metered; a 401 (and a 500 before authentication) may carry none.
        ...(metered && status !== 401 ? rateLimitHeaderRefs() : {}),
        ...(status === 401
          ? { "WWW-Authenticate": { description: challengeDescription, schema: { type: "string" } } }
          : {}),
        ...(status === 429 ? { "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } } } : {}),
        ...(status === 405 ? { Allow: { description: "The methods the endpoint accepts", schema: { type: "string" } } } : {}),
      },
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return out;
}

interface SchemaCollector {
  /** Converts `schema`, registers its named parts as components, returns the schema or a $ref to it. */
  add(schema: z.ZodType, io: "input" | "output"): JsonObject;
  components: Record<string, JsonObject>;
}

/**
 * What every input string obeys whatever its schema (core/schema/well-formed.ts, checked by
 * `parse()` before any schema): no NUL, no unpaired surrogate. Added here to every input string
 * that is not an enum or a constant: as `pattern`, or beside a pattern the string already has.
 */
function stateInputRules(jsonSchema: JsonObject): void {
  if (jsonSchema.type !== "string" || "enum" in jsonSchema || "const" in jsonSchema) return;
  const allOf = (jsonSchema.allOf ?? []) as JsonObject[];
  // zod may hand the same node over more than once (a wrapper and what it wraps).
  if (jsonSchema.pattern === wellFormedTextPattern || allOf.some((s) => s.pattern === wellFormedTextPattern)) return;
  if (jsonSchema.pattern === undefined && allOf.length === 0) jsonSchema.pattern = wellFormedTextPattern;
  else jsonSchema.allOf = [...allOf, { pattern: wellFormedTextPattern }];
}

/**
 * Components by their zod id. An id's input form may differ from its output form (input strings
 * carry the rules above, answers are what the server wrote): the input form is then published as
 * `<id>Input`. Any other clash (two schemas, one id) is a start-up error, not a wrong document.
 */
function createSchemaCollector(): SchemaCollector {
  const components: Record<string, JsonObject> = {};
  return {
    components,
    add(schema, io) {
      const json = z.toJSONSchema(schema, {
        target: "draft-2020-12",
        io,
        unrepresentable: "any",
        override: ({ jsonSchema }) => {
          if (io === "input") {
            stateInputRules(jsonSchema as JsonObject);
            return;
          }
          // z.int() bounds itself to the safe integers, which the server checks on input; in an answer that is noise.
          if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
          if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
        },
      }) as JsonObject;
      const { $schema: _dialect, $defs, ...root } = json;
      const definitions = Object.entries(($defs ?? {}) as Record<string, JsonObject>);
      const names = new Map(definitions.map(([id]) => [id, id]));
      // Name first, then register. An input form whose own content differs is renamed; then,
      // until nothing changes, so is one whose references now point at a renamed form.
      if (io === "input") {
        for (const [id, definition] of definitions) {
          const existing = components[id];
          if (existing && !isDeepStrictEqual(plainRefs(existing), plainRefs(rewriteRefs(definition, names)))) names.set(id, `${id}Input`);
        }
        for (let renamed = true; renamed; ) {
          renamed = false;
          for (const [id, definition] of definitions) {
            const existing = components[id];
            if (names.get(id) === id && existing && !isDeepStrictEqual(existing, rewriteRefs(definition, names))) {
              names.set(id, `${id}Input`);
              renamed = true;
            }
          }
        }
      }
      for (const [id, definition] of definitions) {
        const name = names.get(id)!;
        const rewritten = rewriteRefs(definition, names) as JsonObject;
        const existing = components[name];
        if (existing && !isDeepStrictEqual(existing, rewritten)) {
          throw new Error(`The schema id "${id}" describes two different shapes; give one of them its own id`);
        }
        components[name] = rewritten;
      }
      return rewriteRefs(root, names) as JsonObject;
    },
  };
}

/** The definition with every reference to an `…Input` form pointed at the plain name, to compare own content. */
function plainRefs(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, inner: unknown) => (key === "$ref" && typeof inner === "string" ? inner.replace(/Input$/, "") : inner));
}

function rewriteRefs(value: unknown, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, names));
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/$defs/")) {
      const id = inner.slice(8);
      out[key] = `#/components/schemas/${names.get(id) ?? id}`;
    } else {
      out[key] = rewriteRefs(inner, names);
    }
  }
  return out;
}

/**
 * The 200 content of an operation: JSON, or for a streamed route its media type with `response`
 * as the shape of one record (OpenAPI 3.1 has no item schema for a stream; 3.2's `itemSchema`
 * would say it, so the description does).
 */
function responseContent(route: RouteDoc, schemas: SchemaCollector): JsonObject {
  const schema = schemas.add(route.response, "output");
  if (route.stream === "ndjson") {
    return { "application/x-ndjson": { schema: { type: "string", description: "One JSON record per line, each shaped like the referenced schema" }, "x-item-schema": schema } };
  }
  if (route.stream === "sse") {
    return { "text/event-stream": { schema: { type: "string", description: "Server-Sent Events; each event's `id` is its sequence number and its `data` one JSON record shaped like the referenced schema. Resume with the `Last-Event-ID` header" }, "x-item-schema": schema } };
  }
  return { "application/json": { schema } };
}
