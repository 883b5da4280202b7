/**
 * A fuzzing harness driven by an OpenAPI document (test/server/fuzz.test.ts, and the hostile-input
 * storage test): per operation, fast-check requests generated from the document's own JSON
 * Schemas (json-schema-arbitrary.ts), valid and mutated (json-mutation.ts), sent through any
 * transport, each answer checked against the document with ajv.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { expect } from "vitest";
import { apiBasePath } from "../../server/index.js";
import { mutationOf } from "./json-mutation.js";
import { schemaArbitraries } from "./json-schema-arbitrary.js";
import type { JsonSchema } from "./json-schema-arbitrary.js";
import { openingOf } from "../server/http.js";
import { componentsResourceId, retarget } from "./openapi-refs.js";

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test

export interface Answer {
  status: number;
  contentType: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON answer
  text: string;
}

/** How requests reach the server: one function, so the in-process app and the process share the test. */
export type Send = (method: string, path: string, key: string, body: unknown) => Promise<Answer>;

export interface Operation {
  label: string;
  method: string;
  path: string;
  definition: Json;
}

export type Kind = "valid" | "body" | "query" | "path";

/** One generated request and what the document says of it. */
export interface Generated {
  kind: Kind;
  params: Record<string, string>;
  query: [string, string][];
  body?: unknown;
  /** False when the document refuses it: a mutated body its schema rejects, a bad query or path. */
  valid: boolean;
  /** Why the document refuses it (ajv's words), for the failure message. */
  why?: string;
}

/** Operations whose run would change what every later run sees: last, and in another organization. */
const lastOf = (op: Operation) => (op.method === "DELETE" || /revoke|bulk/.test(op.path) ? 1 : 0);
export const ownOrganization = (op: Operation) => op.path !== "/organization/policy";

/**
 * The one refusal of a schema-valid body that depends on the organization's state, not on the
 * document: once a kind of record has custom field definitions (the fuzzing may create some,
 * through POST /custom-fields or PUT /configuration), its `customFields` may name only those
 * (README "Custom fields"), and the document cannot say which keys an organization defines. A
 * refusal listing nothing but such keys is that rule at work; any other error still fails.
 */
function namesUndefinedCustomFields(body: unknown): boolean {
  const problem = body as { code?: string; errors?: { path?: string; message?: string }[] } | undefined;
  const errors = problem?.errors ?? [];
  return (
    problem?.code === "validation_failed" &&
    errors.length > 0 &&
    errors.every((e) => /^(fields\.)?customFields\..+$/.test(e.path ?? "") && e.message === "is not a custom field defined for this kind of record")
  );
}

/** A fuzzing harness over one served document: arbitraries, validators and the checks. */
export function fuzzHarness(doc: Json, ids: Record<string, string[]>) {
  const ajv = new Ajv2020({ allErrors: false, strict: true, strictRequired: false });
  addFormats(ajv);
  ajv.addSchema({ $id: componentsResourceId, $defs: retarget(doc.components.schemas) });
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (key: string, schema: JsonSchema): ValidateFunction => {
    let validate = validators.get(key);
    if (!validate) validators.set(key, (validate = ajv.compile(retarget(schema) as Json)));
    return validate;
  };
  const arbitraries = schemaArbitraries({
    components: doc.components.schemas,
    ids,
    // An `if` names members without `type` (the object around it has one); strict ajv wants it said.
    accepts: (schema, value) => validatorOf(JSON.stringify(schema), { type: "object", ...schema })(value) as boolean,
  });

  const operations: Operation[] = Object.entries(doc.paths as Record<string, Json>)
    .flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, Json>).map(([method, definition]) => ({ label: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, definition })),
    )
    .sort((a, b) => lastOf(a) - lastOf(b));

  const bodySchema = (op: Operation): JsonSchema | undefined => op.definition.requestBody?.content?.["application/json"]?.schema;
  const parameters = (op: Operation, where: "path" | "query"): Json[] => ((op.definition.parameters ?? []) as Json[]).filter((p) => p.in === where);

  /**
   * Whether the document accepts these query parameters: read back as OpenAPI's form style says
   * (a repeated name is an array, decimal text is a number where the schema wants one), then
   * checked against an object of the declared parameters.
   */
  function queryIsValid(op: Operation, pairs: [string, string][]): boolean {
    const declared = parameters(op, "query");
    const schema = {
      type: "object",
      properties: Object.fromEntries(declared.map((p) => [p.name, p.schema])),
      required: declared.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    };
    const values: Record<string, unknown[]> = {};
    for (const [name, value] of pairs) (values[name] ??= []).push(value);
    const read = Object.fromEntries(
      Object.entries(values).map(([name, list]) => {
        const wants = JSON.stringify(declared.find((p) => p.name === name)?.schema ?? {});
        const typed = list.map((v) => (/"type":"(integer|number)"/.test(wants) && /^-?\d+$/.test(v as string) ? Number(v) : v));
        return [name, typed.length === 1 ? typed[0] : typed];
      }),
    );
    return validatorOf(`${op.label} query`, schema)(read) as boolean;
  }

  /** Requests for one operation: mostly valid ones, and each kind of mutation. */
  function requests(op: Operation): fc.Arbitrary<Generated> {
    const pathParams = parameters(op, "path");
    const queryParams = parameters(op, "query");
    const params = fc.record(Object.fromEntries(pathParams.map((p) => [p.name as string, arbitraries.valid(p.schema) as fc.Arbitrary<string>])));
    const query = fc
      .record(Object.fromEntries(queryParams.map((p) => [p.name as string, arbitraries.valid(p.schema)])), {
        requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name as string),
      })
      .map(serialiseQuery);
    const schema = bodySchema(op);
    const validateBody = schema ? validatorOf(`${op.label} body`, schema) : undefined;
    const body = schema ? arbitraries.valid(schema).filter((value) => validateBody!(value)) : fc.constant(undefined);
    const valid = fc.record({ params, query, body }).map((r): Generated => ({ kind: "valid", ...r, valid: true }));

    const kinds: fc.Arbitrary<Generated>[] = [valid, valid, valid];
    if (schema) {
      kinds.push(
        fc.record({ params, query, body }).chain((r) =>
          mutationOf(r.body).map((mutated): Generated => {
            const valid = validateBody!(mutated) as boolean;
            return { kind: "body", params: r.params, query: r.query, body: mutated, valid, ...(valid ? {} : { why: ajv.errorsText(validateBody!.errors) }) };
          }),
        ),
      );
    }
    if (queryParams.length > 0) {
      const junk = fc.oneof(fc.constant(["zzUnknownParameter", "1"] as [string, string]), fc.tuple(fc.constantFrom(...queryParams.map((p) => p.name as string)), fc.constantFrom("\u0000", "not-a-valid-value-%", "-1", "1e99", "x".repeat(5000))));
      kinds.push(
        fc.record({ params, query, body, junk }).map((r): Generated => {
          const mutated = [...r.query, r.junk];
          return { kind: "query", params: r.params, query: mutated, body: r.body, valid: queryIsValid(op, mutated) };
        }),
      );
    }
    if (pathParams.length > 0) {
      // Not empty and not a dot segment: `/tasks/`, `/tasks/.` and `/tasks/..` are other paths
      // once a URL is parsed (the list, the API root), not a task with an odd id.
      const bad = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s !== "." && s !== ".."), fc.constantFrom("x\u0000", "../etc", "case_", "CASE_01KAAAAAAAAAAAAAAAAAAAAAAA"));
      kinds.push(
        fc.record({ params, query, body, name: fc.constantFrom(...pathParams.map((p) => p.name as string)), bad }).map(
          (r): Generated => ({ kind: "path", params: { ...r.params, [r.name]: r.bad }, query: r.query, body: r.body, valid: false }),
        ),
      );
    }
    return fc.oneof(...kinds).filter((g) => g.kind !== "path" || !Object.entries(g.params).some(([name, value]) => new RegExp(pathParams.find((p) => p.name === name)!.schema.pattern).test(value)));
  }

  /** Answers seen per operation (FUZZ_DEBUG=1 prints them: how deep the generated requests reach). */
  const seen: Record<string, Record<string, number>> = {};

  /** Sends one generated request; the answer and the path it went to. */
  async function sendGenerated(op: Operation, generated: Generated, send: Send, key: string): Promise<{ answer: Answer; path: string }> {
    let path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(generated.params[name] ?? ""));
    if (generated.query.length > 0) path += `?${new URLSearchParams(generated.query)}`;
    return { answer: await send(op.method, apiBasePath + path, key, generated.body), path };
  }

  /** Sends one request and checks the answer against the document. */
  async function check(op: Operation, generated: Generated, send: Send, key: string): Promise<void> {
    const { answer, path } = await sendGenerated(op, generated, send, key);
    if (process.env.FUZZ_DEBUG) {
      const tally = (seen[op.label] ??= {});
      const cell = `${generated.kind}:${answer.status}`;
      tally[cell] = (tally[cell] ?? 0) + 1;
    }
    const where = `${op.label} (${generated.kind}, ${answer.status}): ${answer.text.slice(0, 400)}\nrequest: ${path} ${JSON.stringify(generated.body)?.slice(0, Number(process.env.FUZZ_SHOW) || 600)}${generated.why ? `\nrefused by the document: ${generated.why}` : ""}`;

    expect(answer.status, where).toBeLessThan(500);
    const declared = resolve(doc, op.definition.responses[String(answer.status)]) as Json | undefined;
    expect(declared, `undocumented status: ${where}`).toBeDefined();
    const [mediaType, media] = Object.entries(declared!.content as Record<string, Json>)[0]!;
    expect(answer.contentType, where).toBe(mediaType);
    if (media["x-item-schema"]) {
      // A streamed answer (NDJSON lines, or Server-Sent Events' data): each record has the item schema.
      const validateItem = validatorOf(`${op.label} ${answer.status} item`, media["x-item-schema"]);
      for (const record of streamedRecords(answer.text)) {
        if (!validateItem(record)) expect.fail(`a streamed record breaks its schema (${ajv.errorsText(validateItem.errors)}): ${where}`);
      }
    } else {
      const validate = validatorOf(`${op.label} ${answer.status}`, media.schema);
      if (!validate(answer.body)) expect.fail(`answer breaks its schema (${ajv.errorsText(validate.errors)}): ${where}`);
    }

    if (generated.valid && !namesUndefinedCustomFields(answer.body)) expect((answer.body as Json | undefined)?.code, `a valid request was refused: ${where}`).not.toBe("validation_failed");
    else if (generated.kind === "body") expect(answer.status, `a body the document refuses was accepted: ${where}`).toBeGreaterThanOrEqual(400);
    else if (generated.kind === "query") expect(answer.status, `a query the document refuses was accepted: ${where}`).toBe(400);
    else if (generated.kind === "path") expect(answer.status, where).toBe(404);
  }

  /**
   * Runs `numRuns` generated requests per operation and returns what failed, one line per
   * operation (fast-check's shrunk counterexample), so one run reports every broken operation.
   */
  async function run(ops: readonly Operation[], send: Send, keyOf: (op: Operation) => string, numRuns: number): Promise<string[]> {
    const failures: string[] = [];
    for (const op of ops) {
      if (process.env.FUZZ_DEBUG) console.error("fuzzing", op.label);
      const outcome = await fc.check(
        fc.asyncProperty(requests(op), (generated) => check(op, generated, send, keyOf(op))),
        { numRuns, seed: Number(process.env.FUZZ_SEED) || undefined, interruptAfterTimeLimit: 20_000 },
      );
      if (outcome.failed && process.env.FUZZ_DUMP) (await import("node:fs")).appendFileSync(process.env.FUZZ_DUMP, `${op.label}\n${JSON.stringify(outcome.counterexample)}\n`);
      if (outcome.failed) failures.push(`${op.label} (seed ${outcome.seed}): ${String((outcome.errorInstance as Error | undefined)?.message ?? outcome.errorInstance).slice(0, 1500)}`);
    }
    if (process.env.FUZZ_DEBUG) console.error(Object.entries(seen).map(([label, tally]) => `${label}: ${JSON.stringify(tally)}`).join("\n"));
    return failures;
  }

  return { operations, requests, sendGenerated, check, run };
}

/** Query members as form-style, exploded parameters: arrays repeat, scalars as text. */
function serialiseQuery(values: Record<string, unknown>): [string, string][] {
  return Object.entries(values).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, String(v)]));
}

function resolve(document: Json, node: Json | undefined): unknown {
  if (!node || typeof node.$ref !== "string") return node;
  return (node.$ref as string)
    .slice(2)
    .split("/")
    .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], document);
}


export async function toAnswer(response: Response): Promise<Answer> {
  // An event stream does not end: its opening (the first event or `retry:`) is the answer checked.
  const text = response.headers.get("content-type")?.startsWith("text/event-stream") ? await openingOf(response) : await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, contentType: response.headers.get("content-type")?.split(";")[0] ?? "", body, text };
}

export function requestInit(method: string, key: string, body: unknown): RequestInit {
  return {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  };
}

/** Records to act on, made through the API itself: their ids feed the path and body generators. */
export async function seedThroughApi(send: Send, key: string): Promise<Record<string, string[]>> {
  const ids: Record<string, string[]> = {};
  const made = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const answer = await send(method, apiBasePath + path, key, body);
    expect(answer.status, `seeding ${method} ${path}: ${answer.text}`).toBeLessThan(300);
    const id = answer.body?.id as string | undefined;
    if (id) (ids[id.slice(0, id.indexOf("_"))] ??= []).push(id);
    if (typeof answer.body?.organizationId === "string") ids.org = [answer.body.organizationId as string];
    return answer.body;
  };
  for (let i = 0; i < 3; i++) {
    const kase = await made("POST", "/cases", { title: `Fuzzed case ${i}`, severity: 2, customFields: { round: i } });
    const alert = await made("POST", "/alerts", { title: `Fuzzed alert ${i}`, severity: 2, source: "fuzz", sourceRef: `fuzz-${i}-${Math.random()}` });
    const task = await made("POST", `/cases/${kase.id}/tasks`, { title: `Fuzzed task ${i}` });
    await made("POST", `/cases/${kase.id}/observables`, { dataType: "ip", data: `192.0.2.${i + 1}` });
    await made("POST", `/alerts/${alert.id}/observables`, { dataType: "domain", data: `fuzz${i}.example` });
    await made("POST", `/cases/${kase.id}/comments`, { body: `Fuzzed comment ${i}` });
    await made("POST", `/tasks/${task.id}/comments`, { body: `On a task ${i}` });
    await made("POST", "/users", { email: `fuzz${i}.${Math.random().toString(36).slice(2)}@acme.test`, name: `Fuzz ${i}` });
    await made("POST", "/teams", { name: `Fuzz team ${i} ${Math.random()}` });
    await made("POST", "/api-keys", { name: `fuzz key ${i}`, scopes: ["cases:read"] });
    const hook = await made("POST", "/webhooks", { name: `Fuzz hook ${i}`, url: "https://hooks.example.com/fuzz", events: ["team.deleted"], maxRetries: 0 });
    const delivery = await made("POST", `/webhooks/${hook.id}/test`);
    (ids.dlv ??= []).push(delivery.id);
  }
  return ids;
}

/** The records of a streamed answer's text: NDJSON lines, or the `data:` of each event. */
function streamedRecords(text: string): unknown[] {
  const lines = text.split("\n").filter((line) => line !== "");
  const events = lines.some((line) => line.startsWith("data:") || line.startsWith("id:") || line.startsWith("retry:") || line.startsWith(":"));
  const data = events ? lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()) : lines;
  return data.map((line) => JSON.parse(line) as unknown);
}
