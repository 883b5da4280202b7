/**
 * An example for every request body and every success answer of the OpenAPI document, from one
 * place: a schema's own `examples` (written beside the zod schema where a realistic one matters)
 * or, failing that, one built from the schema itself, so a new operation cannot lack one. Built
 * examples take the first value each keyword allows (the default, the first enum member, the
 * minimum…) and, for text, a sample named after the member that fits every pattern and length.
 * `npm run openapi:lint` (no-invalid-media-type-examples) checks each against its schema.
 */
type Json = Record<string, unknown>;

/** Sample text per member name, tried first; then the generic samples below. */
const namedSamples: Record<string, string> = {
  title: "Phishing wave against finance",
  name: "Tier 1 triage",
  description: "Reported by three users within ten minutes.",
  body: "Blocked the sender domain at the gateway.",
  source: "siem",
  sourceRef: "SIEM-2026-0042",
  typeValue: "phishing",
  message: "Seen in the mail gateway logs",
  data: "198.51.100.7",
  dataType: "ip",
  environment: "production",
  email: "ana@acme.example",
  password: "correct horse battery staple",
  url: "https://hooks.example.com/casekit",
  timezone: "Europe/Paris",
  tier: "L2",
  function: "triage",
  slackChannel: "#soc-triage",
  teamsChannel: "SOC Triage",
  clientId: "acme-emea",
  color: "#d73a49",
  q: "invoice",
  key: "ck_live_3x4mpl3k3y0000000000000000_a1b2",
  secret: "whsec_MfKQ9r8GKYqrTw5hX1BpXzpw",
  start: "ck_live_3x4m",
  secretStart: "whsec_MfKQ",
  status: "ok",
  service: "casekit",
  version: "0.1.0",
  hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  prevHash: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752",
  eventName: "case.created",
  code: "not_found",
  ip: "198.51.100.7",
  userAgent: "curl/8.7.1",
  timestamp: "2026-03-01T12:00:00Z",
};

/** Ids by member name (`assigneeId` holds a user's); `id` takes the kind of the component it is in. */
const idKinds: Record<string, string> = {
  organizationId: "org",
  userId: "user",
  createdBy: "user",
  deletedBy: "user",
  assigneeId: "user",
  actorUserId: "user",
  actorKeyId: "key",
  caseId: "case",
  alertId: "alert",
  parentId: "case",
  resourceId: "case",
  webhookId: "whk",
  eventId: "evt",
  escalationTeamId: "team",
  bulkRequestId: "bulk",
  requestId: "req",
};
const componentKinds: Record<string, string> = {
  Case: "case",
  Alert: "alert",
  AlertCreated: "alert",
  Task: "task",
  Observable: "obs",
  ObservableCreated: "obs",
  Comment: "cmt",
  ApiKey: "key",
  ApiKeyCreated: "key",
  User: "user",
  UserCreated: "user",
  Team: "team",
  Webhook: "whk",
  WebhookCreated: "whk",
  WebhookDelivery: "dlv",
  WebhookDeliveryAttempt: "att",
  TlpAuditEntry: "tlpa",
  Organization: "org",
};
const sampleId = (kind: string) => `${kind}_01jq7x3m9k2b4c6d8f0g1h2j3k`;

const genericSamples = [
  "example",
  "case.created",
  "#d73a49",
  "X-Casekit-Team",
  "ip",
  "d41d8cd98f00b204e9800998ecf8427e",
  "https://hooks.example.com/casekit",
  "ana@acme.example",
  "2026-03-01T12:00:00Z",
  "198.51.100.7",
  "evil.example",
  "Tier 1",
];

export function createExampleBuilder(components: Record<string, Json>) {
  const resolve = (schema: Json): Json => {
    if (typeof schema.$ref !== "string") return schema;
    const component = schema.$ref.replace("#/components/schemas/", "");
    const target = components[component];
    if (!target) throw new Error(`Unresolved reference ${schema.$ref}`);
    const { $ref: _ref, ...siblings } = schema;
    return { ...target, ...siblings, "x-component": component };
  };

  function exampleOf(raw: Json, name = "", depth = 0): unknown {
    if (depth > 12) throw new Error(`The schema of ${name} nests too deep for an example`);
    const { "x-component": _component, ...schema } = resolve(raw);
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if ("const" in schema) return schema.const;
    if ("default" in schema) return schema.default;
    if (Array.isArray(schema.enum)) return schema.enum[0];
    const alternatives = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
    if (alternatives && !schema.type) {
      // The first alternative that is not null (a nullable member shows its value).
      const chosen = alternatives.find((a) => resolve(a).type !== "null") ?? alternatives[0]!;
      return exampleOf(chosen, name, depth + 1);
    }
    switch (schema.type) {
      case "string":
        return textFor(schema, name);
      case "integer":
      case "number":
        return typeof schema.minimum === "number" ? schema.minimum : typeof schema.maximum === "number" ? Math.min(0, schema.maximum) : 1;
      case "boolean":
        return false;
      case "null":
        return null;
      case "array":
        return (schema.minItems as number | undefined) ? [exampleOf((schema.items ?? {}) as Json, name, depth + 1)] : arrayExample(schema, name, depth);
      case "object":
        return objectExample(alternatives ? { ...schema, required: [...((schema.required ?? []) as string[]), ...((resolve(alternatives[0]!).required ?? []) as string[])] } : schema, depth, _component as string | undefined);
      default:
        return null;
    }
  }

  /** A non-empty list where its items are objects or named text: an answer's list shows an item. */
  function arrayExample(schema: Json, name: string, depth: number): unknown[] {
    const item = schema.items ? resolve(schema.items as Json) : undefined;
    return item && (item.type === "object" || typeof item.$ref === "string") ? [exampleOf(item, name, depth + 1)] : [];
  }

  function objectExample(schema: Json, depth: number, component?: string): Json {
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const required = new Set((schema.required ?? []) as string[]);
    // Required members, or every member of an answer-like object (no `additionalProperties: false`
    // means it was not a strict input), or the first member where at least one is needed.
    const names = Object.keys(properties).filter((n) => required.has(n) || schema.additionalProperties !== false);
    if (names.length === 0 && ((schema.minProperties as number | undefined) ?? 0) > 0) names.push(Object.keys(properties)[0]!);
    const kind = (n: string) => (n === "id" ? componentKinds[component ?? ""] : idKinds[n]);
    return Object.fromEntries(
      names.map((n) => {
        const property = resolve(properties[n]!);
        // An answer's ids and times are plain strings in the schema: show them as they come.
        if (property.type === "string" && !property.pattern && !property.enum && kind(n)) return [n, sampleId(kind(n)!)];
        if (property.type === "string" && !property.format && !property.enum && /(At|^at)$/.test(n)) return [n, "2026-03-01T12:00:00Z"];
        return [n, exampleOf(properties[n]!, n, depth + 1)];
      }),
    );
  }

  function textFor(schema: Json, name: string): string {
    const patterns = [schema.pattern, ...((schema.allOf ?? []) as Json[]).map((s) => s.pattern)].filter((p): p is string => typeof p === "string");
    const fits = (text: string) => {
      const length = [...text].length;
      return length >= ((schema.minLength as number | undefined) ?? 0) && length <= ((schema.maxLength as number | undefined) ?? Infinity) && patterns.every((p) => new RegExp(p, "u").test(text));
    };
    const id = patterns.map((p) => /^\^(\w+)_\[0-9a-z\]\{26\}\$$/.exec(p)?.[1]).find(Boolean);
    const candidates = [
      ...(id ? [`${id}_01jq7x3m9k2b4c6d8f0g1h2j3k`] : []),
      ...(schema.format === "date-time" ? ["2026-03-01T12:00:00Z"] : []),
      ...(namedSamples[name] !== undefined ? [namedSamples[name]!] : []),
      ...genericSamples,
    ];
    const chosen = candidates.find(fits);
    if (chosen === undefined) throw new Error(`No example text fits the member ${name || "(unnamed)"} (${patterns.join(", ")}): give its schema meta examples`);
    return chosen;
  }

  return exampleOf;
}
