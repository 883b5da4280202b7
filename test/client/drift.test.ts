/**
 * The typed client's generated types must describe the document the app serves. A route or schema
 * change without `npm run client:generate` fails here (and so in CI), before a client ships stale.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { clientTypesFile, generateClientTypes } from "../../server/client/generate.js";

describe("casekit/client generated types", () => {
  it("match the OpenAPI document built from the route table", async () => {
    const committed = await readFile(clientTypesFile, "utf8");
    const fresh = await generateClientTypes();
    if (committed !== fresh) {
      expect.fail("server/client/api-types.ts is out of date with the OpenAPI document: run `npm run client:generate` and commit the result");
    }
    expect(fresh).toContain('"/cases"');
  });
});
