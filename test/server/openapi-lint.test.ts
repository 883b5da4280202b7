/** Redocly's linter passes on the served OpenAPI document with the rules of redocly.yaml. */
import { describe, expect, it } from "vitest";
import { lintOpenApiDocument } from "../../server/openapi-lint.js";

describe("OpenAPI document lint (redocly.yaml)", () => {
  it("passes `redocly lint` with no error", async () => {
    const { exitCode, output } = await lintOpenApiDocument();
    expect(exitCode, output).toBe(0);
    expect(output).toMatch(/valid/i);
  }, 60_000);
});
