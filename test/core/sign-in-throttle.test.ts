// Issue 12 item 6: password guessing is slowed without letting an outsider lock the rightful user out.
import { beforeEach, describe, expect, it } from "vitest";
import { accountSlowDownAfter, accountSlowDownMs, signInFailureLimit, signInWindowMs } from "../../core/index.js";
import { makeTestKit } from "../helpers/kit.js";
import type { TestKit } from "../helpers/kit.js";

const email = "sam@acme.test";
const password = "correct horse battery";
let t: TestKit;

beforeEach(async () => {
  t = await makeTestKit();
  await t.kit.users.create(t.admin, { email, name: "Sam", password });
});

const from = (ip: string) => ({ requestId: "req_test", ip });

async function attempt(ip: string, pass: string, who = email): Promise<{ code: string; retryAfterSeconds?: number } | "signed in"> {
  try {
    await t.kit.account.signIn({ email: who, password: pass }, from(ip));
    return "signed in";
  } catch (error) {
    const { code, retryAfterSeconds } = error as { code: string; retryAfterSeconds?: number };
    return retryAfterSeconds === undefined ? { code } : { code, retryAfterSeconds };
  }
}

describe("sign-in throttling", () => {
  it("locks the guesser's address out for that account, never the user at their own address", async () => {
    for (let i = 0; i < signInFailureLimit; i++) expect(await attempt("198.51.100.66", "guess")).toEqual({ code: "invalid_credentials" });
    expect(await attempt("198.51.100.66", password)).toEqual({ code: "rate_limited", retryAfterSeconds: signInWindowMs / 1000 });
    expect(await attempt("203.0.113.10", password)).toBe("signed in");
    // Another account from the guesser's address is still checked.
    expect(await attempt("198.51.100.66", "guess", "nobody@acme.test")).toEqual({ code: "invalid_credentials" });
    t.clock.advance(signInWindowMs);
    expect(await attempt("198.51.100.66", password)).toBe("signed in");
  });

  it("counts unknown emails the same way, so the answers never tell which emails exist", async () => {
    for (const who of [email, "ghost@acme.test"]) {
      for (let i = 0; i < signInFailureLimit; i++) expect(await attempt("198.51.100.67", "guess", who)).toEqual({ code: "invalid_credentials" });
      expect(await attempt("198.51.100.67", "guess", who)).toEqual({ code: "rate_limited", retryAfterSeconds: signInWindowMs / 1000 });
    }
  });

  it("slows an account guessed at from many addresses, briefly, and not at an address it signed in from lately", async () => {
    expect(await attempt("203.0.113.10", password)).toBe("signed in"); // the user's usual address
    const guessers = Array.from({ length: Math.ceil(accountSlowDownAfter / signInFailureLimit) }, (_, i) => `198.51.100.${i + 1}`);
    for (const ip of guessers) for (let i = 0; i < signInFailureLimit; i++) await attempt(ip, "guess");

    // A fresh address waits a few seconds (a slow-down, not a lock-out)…
    const slowed = await attempt("192.0.2.50", password);
    expect(slowed).toMatchObject({ code: "rate_limited" });
    expect((slowed as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(accountSlowDownMs / 1000);
    // …the user's usual address does not wait at all…
    expect(await attempt("203.0.113.10", password)).toBe("signed in");
    // …and the fresh address gets its turn once the slow-down has passed.
    t.clock.advance(accountSlowDownMs);
    expect(await attempt("192.0.2.50", password)).toBe("signed in");
  });

  it("keeps guessing across many addresses to one attempt per slow-down interval", async () => {
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const outcome = await attempt(`10.0.${Math.floor(i / 200)}.${i % 200}`, "guess");
      if (outcome !== "signed in" && outcome.code === "invalid_credentials") checked += 1;
      t.clock.advance(1_000);
    }
    // 400 s of guessing from 400 addresses: the first `accountSlowDownAfter` freely, then one per interval.
    expect(checked).toBeLessThanOrEqual(accountSlowDownAfter + Math.ceil(400_000 / accountSlowDownMs) + 1);
  });
});
