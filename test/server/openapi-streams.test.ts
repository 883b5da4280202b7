import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildDocument } from "../../server/openapi.js";
import type { RouteDoc } from "../../server/route.js";

const record = z.object({ seq: z.int(), action: z.string() }).meta({ id: "StreamRecord" });

function documentOf(routes: RouteDoc[]) {
  return buildDocument({
    routes,
    serverUrl: "/api/v1",
    title: "t",
    description: "d",
    securitySchemes: {},
    security: [],
    operationSecurity: () => undefined,
    accessNote: () => "",
    challengeDescription: "c",
  });
}

describe("streamed routes in the OpenAPI document", () => {
  it("name their media type and the shape of one record; other routes stay JSON", () => {
    const doc = documentOf([
      { method: "GET", path: "/things/export", operationId: "exportThings", summary: "s", tag: "Things", response: record, stream: "ndjson" },
      { method: "GET", path: "/things/stream", operationId: "streamThings", summary: "s", tag: "Things", response: record, stream: "sse" },
      { method: "GET", path: "/things", operationId: "listThings", summary: "s", tag: "Things", response: record },
    ]) as unknown as { paths: Record<string, { get: { responses: { "200": { content: Record<string, Record<string, unknown>> } } } }> };
    const content = (path: string) => doc.paths[path]!.get.responses["200"].content;
    expect(Object.keys(content("/things/export"))).toEqual(["application/x-ndjson"]);
    expect(content("/things/export")["application/x-ndjson"]).toMatchObject({ schema: { type: "string" }, "x-item-schema": { $ref: "#/components/schemas/StreamRecord" } });
    expect(Object.keys(content("/things/stream"))).toEqual(["text/event-stream"]);
    expect(content("/things/stream")["text/event-stream"]).toMatchObject({ "x-item-schema": { $ref: "#/components/schemas/StreamRecord" } });
    expect(Object.keys(content("/things"))).toEqual(["application/json"]);
    expect(content("/things")["application/json"]).toMatchObject({ schema: { $ref: "#/components/schemas/StreamRecord" } });
  });
});
