import { z } from "zod";
import { listResponseSchema, resourceMetaShape } from "../schema/common.js";
import { webhookFiltersSchema } from "./filters.js";

/**
 * Webhook subscriptions (spec §2.4; conventions "Webhooks" for the defaults). Bounds: a delivery
 * attempt waits 1–30 s, a subscription retries at most 10 times, starting 100 ms – 10 min after
 * the first failure. `url` is checked for SSRF by the service (it needs the deployment's allowlist).
 */
export const webhookMethods = ["POST", "PUT", "PATCH"] as const;
export const webhookAuthTypes = ["none", "basic", "bearer", "header"] as const;

/** Headers a subscription may not set: the transport and the signature own them. */
const reservedHeader = /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|proxy-.*|webhook-.*)$/i;
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "must be an HTTP header name");
const headerValue = z.string().max(1000).refine((v) => !/[\r\n\0]/.test(v), "must not contain CR, LF or NUL");

const headersSchema = z
  .record(headerName, headerValue)
  .refine((h) => Object.keys(h).length <= 20, "at most 20 headers")
  .refine((h) => !Object.keys(h).some((name) => reservedHeader.test(name)), "must not set Host, Content-Length, Transfer-Encoding, Connection or webhook-* headers")
  .meta({ description: "Extra headers sent with every delivery" });

/** authConfig per authType; values are secrets: stored, used, never returned. */
const authConfigSchema = z.union([
  z.strictObject({ username: z.string().min(1).max(200).refine((v) => !v.includes(":"), "must not contain ':'"), password: z.string().min(1).max(500) }),
  z.strictObject({ token: z.string().min(1).max(2000).refine((v) => !/[\r\n\0]/.test(v), "must not contain CR, LF or NUL") }),
  z.strictObject({ name: headerName.refine((n) => !reservedHeader.test(n) && n.toLowerCase() !== "content-type", "must not be a reserved header"), value: headerValue }),
  z.strictObject({}),
]);

export const webhookEventPattern = /^(\*|[a-z][a-z_]*\.(\*|[a-z][a-z_]*))$/;

const baseShape = {
  name: z.string().min(1).max(200),
  url: z.string().min(1).max(2048).meta({ description: "http(s) target; private, loopback, link-local and metadata addresses are refused unless the deployment allows them" }),
  events: z
    .array(z.string().regex(webhookEventPattern, "must be an event name like case.created, a resource wildcard like alert.*, or *"))
    .min(1)
    .max(100),
  description: z.string().max(2000),
  method: z.enum(webhookMethods),
  authType: z.enum(webhookAuthTypes),
  authConfig: authConfigSchema,
  headers: headersSchema,
  filters: webhookFiltersSchema,
  retryDelayMs: z.int().min(100).max(600_000),
  timeoutMs: z.int().min(1_000).max(30_000),
  maxRetries: z.int().min(0).max(10),
  tags: z.array(z.string().min(1).max(100)).max(50),
  environment: z.string().min(1).max(50),
};

/** The authConfig members each authType needs (checked across fields). */
function authFits(value: { authType?: string; authConfig?: object }): boolean {
  const keys = Object.keys(value.authConfig ?? {}).sort().join(",");
  switch (value.authType ?? "none") {
    case "none":
      return keys === "";
    case "basic":
      return keys === "password,username";
    case "bearer":
      return keys === "token";
    default:
      return keys === "name,value";
  }
}
const authMessage = { message: "authConfig must be {} for none, { username, password } for basic, { token } for bearer, { name, value } for header", path: ["authConfig"] };

export const webhookCreateSchema = z
  .strictObject({
    name: baseShape.name,
    url: baseShape.url,
    events: baseShape.events,
    description: baseShape.description.optional(),
    method: baseShape.method.default("POST"),
    authType: baseShape.authType.default("none"),
    authConfig: baseShape.authConfig.default({}),
    headers: baseShape.headers.default({}),
    filters: baseShape.filters.default({}),
    retryDelayMs: baseShape.retryDelayMs.default(1000),
    timeoutMs: baseShape.timeoutMs.default(30_000),
    maxRetries: baseShape.maxRetries.default(3),
    tags: baseShape.tags.default([]),
    environment: baseShape.environment.default("production"),
  })
  .refine(authFits, authMessage)
  .meta({ id: "WebhookCreate" });

export const webhookUpdateSchema = z
  .strictObject({
    ...baseShape,
    description: baseShape.description.nullable(),
    status: z.enum(["active", "disabled"]),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, "give at least one field to change")
  .refine((v) => (v.authType === undefined && v.authConfig === undefined) || authFits(v), authMessage)
  .meta({ id: "WebhookUpdate" });

export const webhookStatuses = ["active", "disabled"] as const;

/** A subscription as the API returns it: secrets never, authConfig masked. */
export const webhookSchema = z
  .object({
    ...resourceMetaShape,
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    method: z.enum(webhookMethods),
    authType: z.enum(webhookAuthTypes),
    authConfig: z.record(z.string(), z.literal("********")).meta({ description: "The configured members, values masked" }),
    headers: z.record(z.string(), z.string()),
    filters: webhookFiltersSchema,
    retryDelayMs: z.int(),
    timeoutMs: z.int(),
    maxRetries: z.int(),
    tags: z.array(z.string()),
    environment: z.string(),
    status: z.enum(webhookStatuses),
    disabledReason: z.string().nullable(),
    secretStart: z.string().meta({ description: "The first characters of the signing secret, to tell secrets apart" }),
  })
  .meta({ id: "Webhook" });

export const webhookCreatedSchema = webhookSchema
  .extend({ secret: z.string().meta({ description: "The signing secret (whsec_…), shown this once" }) })
  .meta({ id: "WebhookCreated" });

export const webhookListSchema = listResponseSchema(webhookSchema).meta({ id: "WebhookList" });

export type WebhookCreateInput = z.output<typeof webhookCreateSchema>;
export type WebhookUpdateInput = z.output<typeof webhookUpdateSchema>;

/** `case.created` matches `case.created`, `case.*` and `*`. */
export function subscribedTo(events: readonly string[], name: string): boolean {
  const resource = name.slice(0, name.indexOf("."));
  return events.some((e) => e === "*" || e === name || e === `${resource}.*`);
}
