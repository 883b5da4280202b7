/**
 * casekit/client against a real app listening on 127.0.0.1: typed success bodies, query
 * parameters serialized the way the API reads them, and typed problem bodies on 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaseKitClient } from "../../server/client/index.js";
import type { CaseKitClient } from "../../server/client/index.js";
import { apiBasePath } from "../../server/index.js";
import { listening } from "../server/http.js";
import { makeWorld } from "../server/world.js";
import type { World } from "../server/world.js";

describe("casekit/client", () => {
  let w: World;
  let server: Awaited<ReturnType<typeof listening>>;
  let client: CaseKitClient;
  beforeAll(async () => {
    w = await makeWorld();
    server = await listening(w.app);
    client = createCaseKitClient({ baseUrl: `http://127.0.0.1:${server.port}${apiBasePath}/`, apiKey: w.adminKey });
  });
  afterAll(async () => {
    await server.close();
  });

  it("creates a case, reads it back and lists with filters", async () => {
    const created = await client.POST("/cases", { body: { title: "Client-made case", severity: 4, tags: [{ name: "client" }] } });
    expect(created.response.status).toBe(200);
    expect(created.error).toBeUndefined();
    const id: string = created.data!.id;
    expect(created.data).toMatchObject({ title: "Client-made case", severity: 4, statusValue: "new" });
    await client.POST("/cases", { body: { title: "Low one", severity: 1 } });

    const one = await client.GET("/cases/{id}", { params: { path: { id } } });
    expect(one.data?.number).toBe(created.data!.number);

    // Repeated parameters (severity=4&severity=3) mean "any of"; the client explodes arrays.
    const listed = await client.GET("/cases", { params: { query: { severity: [4, 3], tag: ["client"], limit: 10 } } });
    expect(listed.error).toBeUndefined();
    expect(listed.data?.data.map((c) => c.id)).toEqual([id]);
    expect(listed.data?.nextCursor).toBeNull();
  });

  it("gives the typed problem body on 400, 404 and 401", async () => {
    // @ts-expect-error severity is a number: the compiler refuses this body, the server too.
    const invalid = await client.POST("/cases", { body: { title: "Bad severity", severity: "high" } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.data).toBeUndefined();
    expect(invalid.error?.code).toBe("validation_failed");
    expect(invalid.error?.errors?.some((e) => e.path.includes("severity"))).toBe(true);

    const missing = await client.GET("/cases/{id}", { params: { path: { id: "case_01kaaaaaaaaaaaaaaaaaaaaaaa" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ status: 404, code: "not_found", type: "https://casekit.dev/problems/not_found" });

    const anonymous = createCaseKitClient({ baseUrl: `http://127.0.0.1:${server.port}${apiBasePath}` });
    const refused = await anonymous.GET("/cases", {});
    expect(refused.response.status).toBe(401);
    expect(refused.error?.code).toBe("missing_credentials");
    // The document itself is public.
    expect((await anonymous.GET("/openapi.json")).data?.openapi).toBe("3.1.0");
  });

  it("calls an in-process app through a custom fetch, with extra headers", async () => {
    const inProcess = createCaseKitClient({
      baseUrl: `http://casekit.test${apiBasePath}`,
      headers: { "X-Api-Key": w.adminKey },
      fetch: (request) => Promise.resolve(w.app.fetch(request)),
    });
    const health = await inProcess.GET("/health");
    expect(health.data?.status).toBe("ok");
  });
});
