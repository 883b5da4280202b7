import { z } from "zod";
import { boundedString, changeSchema, listResponseSchema, resourceMetaShape } from "../schema/common.js";
import { webhookFiltersSchema } from "./filters.js";

/**
 * Webhook subscriptions (spec §2.4; conventions "Webhooks" for the defaults). Bounds: a delivery
 * attempt waits 1–30 s, a subscription retries at most 10 times, starting 100 ms – 10 min after
 * the first failure. `url` is checked for SSRF by the service (it needs the deployment's allowlist).
 */
export const webhookMethods = ["POST", "PUT", "PATCH"] as const;
export const webhookAuthTypes = ["none", "basic", "bearer", "header"] as const;

/**
 * Headers a subscription may not set: the transport and the signature own them. One list gives
 * the check (case-insensitive) and the document's pattern (JSON Schema patterns take no flags, so
 * each letter is spelled [xX]).
 */
// What the transport sets itself, hop-by-hop headers and Expect (the body is always sent at once): none can be sent as given.
const reservedNames = "host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*|webhook-.*";
const reservedHeader = new RegExp(`^(${reservedNames})$`, "i");
const anyCase = (names: string) => names.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
const maxHeaders = 20;

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "must be an HTTP header name");
/** A header name the subscription may set: not a reserved one (and, for header auth, not Content-Type). */
const settableHeaderName = (alsoReserved = "") =>
  headerName
    .refine((n) => !reservedHeader.test(n) && !(alsoReserved && n.toLowerCase() === alsoReserved), "must not be Host, Content-Length, Transfer-Encoding, Connection, Expect, another hop-by-hop, a proxy-* or webhook-* header" + (alsoReserved ? ` or ${alsoReserved}` : ""))
    .meta({ not: { pattern: `^(${anyCase(alsoReserved ? `${reservedNames}|${alsoReserved}` : reservedNames)})$` } });
const headerValue = boundedString(1000).regex(/^[^\r\n\0]*$/, "must not contain CR, LF or NUL");

const headersSchema = z
  .record(settableHeaderName(), headerValue)
  .refine((h) => Object.keys(h).length <= maxHeaders, `at most ${maxHeaders} headers`)
  .meta({ maxProperties: maxHeaders, description: `Extra headers sent with every delivery (at most ${maxHeaders})` });

/** authConfig per authType; values are secrets: stored, used, never returned. */
const authConfigSchema = z.union([
  z.strictObject({ username: boundedString(200, 1).regex(/^[^:]*$/, "must not contain ':'"), password: boundedString(500, 1) }),
  z.strictObject({ token: boundedString(2000, 1).regex(/^[^\r\n\0]*$/, "must not contain CR, LF or NUL") }),
  z.strictObject({ name: settableHeaderName("content-type"), value: headerValue }),
  z.strictObject({}),
]);

/**
 * An http(s) URL without credentials, parsed as browsers do (WHATWG URL). The pattern states in
 * the document what the parse and the protocol check enforce; SSRF (which hosts and addresses)
 * is checked by the service, which knows the deployment's allowlist.
 */
const webhookUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .regex(/^https?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/, "must be an http or https URL without credentials")
  .meta({ format: "uri" });

/** A lower-case name: a resource or a verb. */
const word = "[a-z][a-z_]*";

/**
 * Any name but `audit`, spelled without lookahead so every JSON Schema tool (and the fuzzer's
 * generator) reads the pattern: a name that differs from "audit" at its first, second, … letter,
 * or is longer than it.
 */
const notAudit =
  "([b-z][a-z_]*|a|a[a-tv-z_][a-z_]*|au|au[a-ce-z_][a-z_]*|aud|aud[a-hj-z_][a-z_]*|audi|audi[a-su-z_][a-z_]*|audit[a-z_]+)";

/**
 * An event name, a resource wildcard or `*`; or an audit kind: `audit.<action>` (the audit event's
 * action, e.g. `audit.key.created`) or `audit.*`. Audit kinds are only ever taken by name: `*`
 * means every record event, not the audit trail too.
 */
export const webhookEventPattern = new RegExp(
  `^(\\*|audit\\.(\\*|${word}\\.${word})|${notAudit}\\.(\\*|${word}))$`,
);

/** The prefix of the outbox events that carry audit events (core/webhooks/audit-outbox.ts). */
export const auditKindPrefix = "audit.";

const baseShape = {
  name: boundedString(200, 1),
  url: webhookUrlSchema.meta({
    description:
      "http(s) target, no credentials. Refused (400 on url) unless the deployment's allowlist names it: a host that is an address outside the unicast ranges (loopback, private, link-local and metadata, unique local, CGNAT, documentation, Teredo, NAT64 local use …) or a local name (localhost, *.local, *.internal, *.home.arpa)",
  }),
  events: z
    .array(boundedString(100).regex(webhookEventPattern, "must be an event name like case.created, a resource wildcard like alert.*, *, or an audit kind like audit.key.created or audit.*"))
    .min(1)
    .max(100)
    .meta({
      description:
        "Event names (case.created), resource wildcards (alert.*) or *; and audit kinds: audit.<action> (audit.key.created) or audit.*, the audit event as the subscription's grant may read it (audit:read, values above its clearance redacted). * does not include audit kinds",
    }),
  description: boundedString(2000),
  method: z.enum(webhookMethods),
  authType: z.enum(webhookAuthTypes),
  authConfig: authConfigSchema,
  headers: headersSchema,
  filters: webhookFiltersSchema,
  retryDelayMs: z.int().min(100).max(600_000),
  timeoutMs: z.int().min(1_000).max(30_000),
  maxRetries: z.int().min(0).max(10),
  tags: z.array(boundedString(100, 1)).max(50),
  environment: boundedString(50, 1),
};

/** The authConfig members each authType needs; a body without authType means none. */
const authMembers: Record<(typeof webhookAuthTypes)[number], readonly string[]> = {
  none: [],
  basic: ["password", "username"],
  bearer: ["token"],
  header: ["name", "value"],
};

function authFits(value: { authType?: (typeof webhookAuthTypes)[number] | undefined; authConfig?: object | undefined }): boolean {
  return Object.keys(value.authConfig ?? {}).sort().join(",") === authMembers[value.authType ?? "none"].join(",");
}
const authMessage = { message: "authConfig must be {} for none, { username, password } for basic, { token } for bearer, { name, value } for header", path: ["authConfig"] };

/**
 * authFits as JSON Schema, from the same table: with authType none (or none given) authConfig is
 * empty; with another authType, authConfig is given with exactly that type's members (each member
 * set of authConfigSchema is closed, so naming the required ones settles which).
 */
const authDependency = {
  allOf: webhookAuthTypes.map((type) =>
    type === "none"
      ? { if: { properties: { authType: { const: type } } }, then: { properties: { authConfig: { type: "object", maxProperties: 0 } } } }
      : {
          if: { properties: { authType: { const: type } }, required: ["authType"] },
          // Each required member named in properties too (any value: authConfigSchema says which).
          then: { required: ["authConfig"], properties: { authConfig: { type: "object", required: [...authMembers[type]], properties: Object.fromEntries(authMembers[type].map((m) => [m, {}])) } } },
        },
  ),
};

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
  .meta({
    id: "WebhookCreate",
    ...authDependency,
    examples: [{ name: "SOAR", url: "https://hooks.example.com/casekit", events: ["case.created", "alert.*"], authType: "bearer", authConfig: { token: "s3cr3t-token" }, filters: { severity: { gte: 3 } } }],
  });

export const webhookUpdateSchema = changeSchema({
  ...baseShape,
  description: baseShape.description.nullable(),
  status: z.enum(["active", "disabled"]),
})
  // A change of credentials names its authType: the stored one is not the body's to assume.
  .refine((v) => v.authConfig === undefined || v.authType !== undefined, { message: "give authType with authConfig", path: ["authConfig"] })
  .refine((v) => (v.authType === undefined && v.authConfig === undefined) || authFits(v), authMessage)
  .meta({ id: "WebhookUpdate", dependentRequired: { authConfig: ["authType"] }, ...authDependency });

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

/** Whether a subscription names any audit kind. */
export function takesAuditKinds(events: readonly string[]): boolean {
  return events.some((e) => e.startsWith(auditKindPrefix));
}

export type WebhookCreateInput = z.output<typeof webhookCreateSchema>;
export type WebhookUpdateInput = z.output<typeof webhookUpdateSchema>;

/** `case.created` matches `case.created`, `case.*` and `*`; `audit.key.created` only itself and `audit.*`. */
export function subscribedTo(events: readonly string[], name: string): boolean {
  if (name.startsWith(auditKindPrefix)) return events.some((e) => e === name || e === `${auditKindPrefix}*`);
  const resource = name.slice(0, name.indexOf("."));
  return events.some((e) => e === "*" || e === name || e === `${resource}.*`);
}
