// Passwords go through the hasher port: scrypt unless the embedder brings another.
import { describe, expect, it } from "vitest";
import { createCaseKit } from "../../core/index.js";
import type { PasswordHasher } from "../../core/index.js";
import { createSqliteStorage } from "../../adapters/sqlite/index.js";

async function kitWith(passwordHasher?: PasswordHasher) {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  return createCaseKit({ storage, config: { keyHashSecret: "hasher-test-secret-0123456789abcdef" }, ...(passwordHasher ? { passwordHasher } : {}) });
}

describe("password hasher port", () => {
  it("stores scrypt hashes by default and signs in against them", async () => {
    const kit = await kitWith();
    const init = await kit.setup.initOrganization({ organizationName: "Default SOC", email: "admin@default.test", password: "a long enough password" });
    const stored = await kit.storage.read((tx) => tx.users.findById(init.organization.id, init.user.id));
    expect(stored?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored?.passwordHash).not.toContain("a long enough password");
    await expect(kit.account.signIn({ email: "admin@default.test", password: "a long enough password" })).resolves.toMatchObject({ csrfToken: expect.any(String) });
  });

  it("hashes and verifies every password through the hasher it is given", async () => {
    const calls: string[] = [];
    const hasher: PasswordHasher = {
      hash: async (password) => (calls.push("hash"), `plainly-test$${password.length}`),
      verify: async (password, stored) => (calls.push("verify"), stored === `plainly-test$${password.length}`),
    };
    const kit = await kitWith(hasher);
    await kit.setup.initOrganization({ organizationName: "Custom SOC", email: "admin@custom.test", password: "twelve chars" });
    expect(calls).toEqual(["hash"]);
    await kit.account.signIn({ email: "admin@custom.test", password: "twelve chars" });
    expect(calls).toEqual(["hash", "verify"]);
  });
});
