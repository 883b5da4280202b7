import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommentParentKind } from "../../core/index.js";
import { apiBasePath, buildOpenApiDocument } from "../../server/index.js";
import { addAlert } from "../helpers/parents.js";
import { actingAs, expectProblem, transports } from "./http.js";
import type { Transport } from "./http.js";
import { makeWorld, userWithKey, validCase } from "./world.js";
import type { World } from "./world.js";

const api = apiBasePath;
const neverExistingComment = "cmt_01kaaaaaaaaaaaaaaaaaaaaaaa";

/** Each parent kind: its collection, its scopes, and how to make one at a given marking. */
const parents: { kind: CommentParentKind; segment: string; read: "cases:read" | "alerts:read" | "tasks:read"; write: "cases:write" | "alerts:write" | "tasks:write"; make: (w: World, tlp: number) => Promise<string> }[] = [
  { kind: "case", segment: "cases", read: "cases:read", write: "cases:write", make: async (w, tlp) => (await w.kit.cases.create(w.admin, { ...validCase, tlp })).id },
  { kind: "alert", segment: "alerts", read: "alerts:read", write: "alerts:write", make: async (w, tlp) => (await addAlert(w, { tlp })).id },
  // A task at the marking, on a GREEN case: the task's own marking decides.
  { kind: "task", segment: "tasks", read: "tasks:read", write: "tasks:write", make: async (w, tlp) => (await w.kit.tasks.create(w.admin, (await w.kit.cases.create(w.admin, { ...validCase, tlp: 0 })).id, { title: "Check", tlp })).id },
];

describe.each(transports)("comments through $name", ({ open }) => {
  let w: World;
  let client: Transport;
  beforeAll(async () => {
    w = await makeWorld();
    client = await open(w);
  });
  afterAll(async () => {
    await client.close();
  });

  const as = (key: string) => actingAs(client, key);

  describe.each(parents)("on a $kind", ({ kind, segment, read, write, make }) => {
    let parentId: string;
    let redId: string;
    /** An analyst with the parent's scopes at clearance 1 (GREEN), and a colleague. */
    let author: string;
    let authorId: string;
    let colleague: string;
    let green: string;
    const thread = (id: string) => `${api}/${segment}/${id}/comments`;

    beforeAll(async () => {
      parentId = await make(w, 1);
      redId = await make(w, 4);
      const a = await userWithKey(w, { role: "analyst", scopes: [read, write] });
      author = a.secret;
      authorId = a.user.id;
      colleague = (await userWithKey(w, { role: "analyst", scopes: [read, write] })).secret;
      green = (await userWithKey(w, { role: "analyst", scopes: [read, write], tlpClearance: 1 })).secret;
    });

    it("posts, reads, edits, lists and soft-deletes a comment", async () => {
      const created = await as(author).post(thread(parentId), { body: "  Checked the logs.  " });
      expect(created.status, created.text).toBe(200);
      expect(created.body).toMatchObject({ organizationId: w.organizationId, parentType: kind, parentId, body: "Checked the logs.", createdBy: authorId, tlp: 1, editedAt: null, deletedAt: null });
      const id: string = created.body.id;
      expect(id).toMatch(/^cmt_[0-9a-z]{26}$/);

      expect((await as(author).get(`${api}/comments/${id}`)).body).toEqual(created.body);
      w.clock.advance(1000);
      const edited = await as(author).patch(`${api}/comments/${id}`, { body: "Checked the proxy logs." });
      expect(edited.status, edited.text).toBe(200);
      expect(edited.body).toMatchObject({ id, body: "Checked the proxy logs.", editedAt: w.clock.now().toISOString() });

      const second = await as(colleague).post(thread(parentId), { body: "Thanks." });
      const listed = await as(green).get(`${thread(parentId)}?limit=1`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
      const next = await as(green).get(`${thread(parentId)}?limit=1&cursor=${listed.body.nextCursor}`);
      expect(next.body.data.map((c: { id: string }) => c.id)).toEqual([second.body.id]);

      const deleted = await as(author).delete(`${api}/comments/${id}`);
      expect(deleted.status, deleted.text).toBe(200);
      expect(deleted.body).toMatchObject({ id, deletedBy: authorId });
      expectProblem(await as(author).get(`${api}/comments/${id}`), 404, "not_found");
      expect((await as(author).get(thread(parentId))).body.data.map((c: { id: string }) => c.id)).toEqual([second.body.id]);
    });

    it("only the author or an admin edits or deletes: 403 not_author for a colleague", async () => {
      const id = (await as(author).post(thread(parentId), { body: "Mine." })).body.id;
      expectProblem(await as(colleague).patch(`${api}/comments/${id}`, { body: "Now mine." }), 403, "not_author");
      expectProblem(await as(colleague).delete(`${api}/comments/${id}`), 403, "not_author");
      expect((await as(w.adminKey).patch(`${api}/comments/${id}`, { body: "[moderated]" })).body.body).toBe("[moderated]");
      expect((await as(w.adminKey).delete(`${api}/comments/${id}`)).status).toBe(200);
    });

    it("bad bodies and queries are 400 validation_failed with the field's path, and change nothing", async () => {
      const id = (await as(author).post(thread(parentId), { body: "Keep me." })).body.id;
      for (const body of [{}, { body: "" }, { body: "   " }, { body: "x".repeat(10_001) }, { body: "ok", parentId }]) {
        expectProblem(await as(author).post(thread(parentId), body), 400, "validation_failed");
        expectProblem(await as(author).patch(`${api}/comments/${id}`, body), 400, "validation_failed");
      }
      const refused = await as(author).post(thread(parentId), { body: "ok", createdBy: "user_x" });
      expect(refused.body.errors).toEqual([{ path: "createdBy", message: "is not a known field" }]);
      expectProblem(await as(author).get(`${thread(parentId)}?limit=0`), 400, "validation_failed");
      expectProblem(await as(author).get(`${thread(parentId)}?cursor=forged`), 400, "validation_failed");
      expect((await as(author).get(`${api}/comments/${id}`)).body).toMatchObject({ body: "Keep me.", editedAt: null });
    });

    it("no key is 401 on every comment route", async () => {
      const id = (await as(author).post(thread(parentId), { body: "x" })).body.id;
      for (const [method, path] of [["POST", thread(parentId)], ["GET", thread(parentId)], ["GET", `${api}/comments/${id}`], ["PATCH", `${api}/comments/${id}`], ["DELETE", `${api}/comments/${id}`]] as const) {
        expectProblem(await client.send(method, path, { body: method === "POST" || method === "PATCH" ? { body: "x" } : undefined }), 401, "missing_credentials");
      }
    });

    it(`needs ${read} to read and ${write} to write; other parents' scopes are not enough`, async () => {
      const id = (await as(author).post(thread(parentId), { body: "x" })).body.id;
      const others = (["cases:read", "cases:write", "alerts:read", "alerts:write", "tasks:read", "tasks:write"] as const).filter((s) => s !== read && s !== write);
      const elsewhere = (await userWithKey(w, { scopes: [...others, "observables:read", "observables:write"] })).secret;
      const readOnly = (await userWithKey(w, { scopes: [read] })).secret;
      for (const key of [elsewhere, readOnly]) {
        expectProblem(await as(key).post(thread(parentId), { body: "x" }), 403, "missing_scope");
        expectProblem(await as(key).patch(`${api}/comments/${id}`, { body: "y" }), 403, "missing_scope");
        expectProblem(await as(key).delete(`${api}/comments/${id}`), 403, "missing_scope");
      }
      expectProblem(await as(elsewhere).get(thread(parentId)), 403, "missing_scope");
      expectProblem(await as(elsewhere).get(`${api}/comments/${id}`), 403, "missing_scope");
      expect((await as(readOnly).get(`${api}/comments/${id}`)).status).toBe(200);
    });

    it("another organization's key gets 404 not_found on the parent and the comment, as for ids that never existed", async () => {
      const id = (await as(author).post(thread(parentId), { body: "x" })).body.id;
      const foreign = as(w.other.adminKey);
      for (const [answer, unknown] of [
        [await foreign.post(thread(parentId), { body: "x" }), await foreign.post(thread(`${parentId.split("_")[0]}_01kaaaaaaaaaaaaaaaaaaaaaaa`), { body: "x" })],
        [await foreign.get(`${api}/comments/${id}`), await foreign.get(`${api}/comments/${neverExistingComment}`)],
        [await foreign.patch(`${api}/comments/${id}`, { body: "y" }), await foreign.patch(`${api}/comments/${neverExistingComment}`, { body: "y" })],
        [await foreign.delete(`${api}/comments/${id}`), await foreign.delete(`${api}/comments/${neverExistingComment}`)],
      ]) {
        expectProblem(answer!, 404, "not_found");
        expectProblem(unknown!, 404, "not_found");
      }
      expectProblem(await foreign.get(thread(parentId)), 404, "not_found");
      expect((await as(author).get(`${api}/comments/${id}`)).body).toMatchObject({ body: "x", deletedAt: null });
    });

    it(`a ${kind} above the caller's clearance: 403 tlp_restricted on its thread and on each of its comments`, async () => {
      const id = (await as(w.adminKey).post(thread(redId), { body: "RED detail" })).body.id;
      for (const answer of [
        await as(green).post(thread(redId), { body: "x" }),
        await as(green).get(thread(redId)),
        await as(green).get(`${api}/comments/${id}`),
        await as(green).patch(`${api}/comments/${id}`, { body: "y" }),
        await as(green).delete(`${api}/comments/${id}`),
      ]) {
        expectProblem(answer, 403, "tlp_restricted");
        expect(answer.text).not.toContain("RED detail");
      }
      const thread4 = await as(w.adminKey).get(thread(redId));
      expect(thread4.body.data).toEqual([expect.objectContaining({ id, body: "RED detail", tlp: 4 })]);
    });
  });
});

describe("comments in the OpenAPI document", () => {
  const doc = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, { security?: unknown; description: string; responses: Record<string, unknown> }>> };

  it("has the nested and by-id routes", () => {
    for (const segment of ["cases/{caseId}", "alerts/{alertId}", "tasks/{taskId}"]) {
      expect(Object.keys(doc.paths[`/${segment}/comments`] ?? {}).sort()).toEqual(["get", "post"]);
    }
    expect(Object.keys(doc.paths["/comments/{id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
  });

  it("documents the by-id routes as needing the parent's scope, any one of them", () => {
    const patch = doc.paths["/comments/{id}"]!.patch!;
    expect(patch.security).toEqual(expect.arrayContaining([{ bearerAuth: ["cases:write"] }, { bearerAuth: ["alerts:write"] }]));
    expect(patch.description).toMatch(/scope of the record's parent/);
    expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(["400", "401", "403", "404"]));
  });
});
