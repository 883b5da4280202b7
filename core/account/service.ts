import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Principal, RequestOrigin } from "../access/principal.js";
import { resolvePrincipal } from "../access/resolve-principal.js";
import type { CaseKitDeps } from "../context.js";
import { CaseKitError } from "../errors.js";
import { boundedString, emailSchema } from "../schema/common.js";
import type { User } from "../users/types.js";
import { toPublicUser } from "../users/service.js";
import { parse } from "../validation.js";
import { afterFailure, afterSuccess, readSignInCounters, signInRefusal, signInSubjects } from "./sign-in-throttle.js";
import type { Session } from "./types.js";
import { recordAuditEvent } from "../audit/record-event.js";
import type { RefusalLog } from "../audit/refusals.js";

export const signInSchema = z
  .strictObject({ email: emailSchema, password: boundedString(1024, 1) })
  .meta({ id: "SignIn" });

/** Sessions end this long after sign-in, whatever happens. */
export const sessionLifetimeMs = 8 * 60 * 60 * 1000;

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const newToken = () => randomBytes(32).toString("base64url");

/**
 * A session's CSRF token is derived from its token, so a page loaded later (a reload, a second
 * tab) can be given it again by `session` without the server keeping anything but hashes. It is
 * no easier to guess than the token, and reading it takes the HttpOnly cookie, which only
 * same-origin requests carry (SameSite=Strict) and only same-origin script can read answers of.
 */
const csrfTokenOf = (token: string) => createHmac("sha256", token).update("casekit csrf token").digest("base64url");

export interface SignedIn {
  user: User;
  /** The session cookie's value: shown once, stored as a hash. */
  token: string;
  /** Send back in `X-CSRF-Token` on every state-changing request. */
  csrfToken: string;
  expiresAt: string;
}

/**
 * The account area: a person signs in with email and password and manages their own keys through
 * a session. Passwords are scrypt hashes; guessing is slowed per (email, address) and per email
 * without locking the rightful user out (sign-in-throttle.ts); failures of known users are audited.
 */
export function createAccountService(deps: CaseKitDeps, refusals: RefusalLog) {
  const { storage, clock, ids } = deps;
  // Compared against when the email is unknown, so a miss costs what a hit does.
  let decoy: Promise<string> | undefined;
  const decoyHash = () => (decoy ??= deps.passwords.hash(newToken()));

  /**
   * A failed sign-in for an email no user has: audited (aggregated) when the deployment holds one
   * organization; with several, the email names none of them, so none is told.
   */
  async function noteUnknownAccount(origin: RequestOrigin | undefined): Promise<void> {
    const organizations = await storage.read((tx) => tx.organizations.idsAfter("", 2));
    if (organizations.length !== 1) return;
    await refusals.note({
      organizationId: organizations[0]!,
      actor: { type: "user", id: null },
      ...(origin ? { origin } : {}),
      action: "user.sign_in_failed",
      // The email is not kept: it names nobody here, and the address tells the attempts apart.
      target: { type: "user", id: "unknown" },
      reason: "invalid_credentials",
      // As a known account's failed sign-in says.
      outcome: "failure",
    });
  }

  return {
    async signIn(input: unknown, origin?: RequestOrigin): Promise<SignedIn> {
      const { email: rawEmail, password } = parse(signInSchema, input);
      const email = rawEmail.toLowerCase();
      const now = clock.now();
      const subjects = signInSubjects(email, origin?.ip);
      const counters = await storage.read((tx) => readSignInCounters(tx, subjects));
      const refused = signInRefusal(counters, now);
      if (refused) throw refused;

      const user = await storage.read((tx) => tx.users.findByEmail(email));
      const matches = await deps.passwords.verify(password, user?.passwordHash ?? (await decoyHash()));
      if (!user || !user.passwordHash || !matches || user.status !== "active") {
        await storage.transaction(async (tx) => {
          for (const counter of afterFailure(counters, subjects, now)) await tx.signInThrottles.put(counter);
          if (user) {
            // Nobody proved who they are: the actor is unknown, the target the account tried.
            await recordAuditEvent(deps, tx, {
              organizationId: user.organizationId,
              actor: { type: "user", id: null },
              ...(origin ? { origin } : {}),
              action: "user.sign_in_failed",
              target: { type: "user", id: user.id },
              outcome: "failure",
              now,
            });
          }
        });
        // An unknown email names no organization; in a deployment of one, it is that one's attack.
        if (!user) await noteUnknownAccount(origin);
        throw new CaseKitError("invalid_credentials");
      }

      const token = newToken();
      const csrfToken = csrfTokenOf(token);
      const session: Session = {
        id: ids.next("ses"),
        organizationId: user.organizationId,
        userId: user.id,
        tokenHash: sha256(token),
        csrfHash: sha256(csrfToken),
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + sessionLifetimeMs).toISOString(),
      };
      await storage.transaction(async (tx) => {
        await afterSuccess(tx, subjects, now);
        await tx.sessions.insert(session);
        await recordAuditEvent(deps, tx, {
          organizationId: user.organizationId,
          actor: { type: "user", id: user.id },
          ...(origin ? { origin } : {}),
          action: "user.signed_in",
          target: { type: "user", id: user.id },
          outcome: "success",
          now,
        });
      });
      return { user: toPublicUser(user), token, csrfToken, expiresAt: session.expiresAt };
    },

    /**
     * The principal of a session token. With `csrfToken` (required by hosts on every request that
     * changes state), the token must match the session's.
     */
    async authenticateSession(token: string, options: { csrfToken?: string | undefined; requireCsrf: boolean; origin?: RequestOrigin }): Promise<Principal & { sessionId: string }> {
      // Embedders may pass anything: what is not a token is no session (never a TypeError).
      if (typeof token !== "string" || token === "") throw new CaseKitError("invalid_session");
      const found = await storage.read((tx) => tx.sessions.findByTokenHash(sha256(token)));
      if (!found || Date.parse(found.session.expiresAt) <= clock.now().getTime()) throw new CaseKitError("invalid_session");
      if (options.requireCsrf) {
        const csrfToken = typeof options.csrfToken === "string" ? options.csrfToken : "";
        const given = Buffer.from(sha256(csrfToken));
        if (!csrfToken || !timingSafeEqual(given, Buffer.from(found.session.csrfHash))) {
          await refusals.note({
            organizationId: found.owner.organizationId,
            actor: { type: "user", id: found.owner.id },
            ...(options.origin ? { origin: options.origin } : {}),
            action: "session.csrf_rejected",
            target: { type: "session", id: found.session.id },
            reason: "csrf_rejected",
          });
          throw new CaseKitError("csrf_rejected");
        }
      }
      const principal = resolvePrincipal(found.owner, { authenticatedBy: "session", ...(options.origin ? { origin: options.origin } : {}) });
      return { ...principal, sessionId: found.session.id };
    },

    /**
     * The session behind a token, for a page that starts with the cookie alone: the user, the CSRF
     * token again (see csrfTokenOf) and the end. Sessions older than the derived CSRF token (whose
     * token was random) cannot be resumed: invalid_session, sign in again.
     */
    async session(token: string): Promise<Omit<SignedIn, "token">> {
      if (typeof token !== "string" || token === "") throw new CaseKitError("invalid_session");
      const found = await storage.read((tx) => tx.sessions.findByTokenHash(sha256(token)));
      if (!found || Date.parse(found.session.expiresAt) <= clock.now().getTime()) throw new CaseKitError("invalid_session");
      const csrfToken = csrfTokenOf(token);
      if (!timingSafeEqual(Buffer.from(sha256(csrfToken)), Buffer.from(found.session.csrfHash))) throw new CaseKitError("invalid_session");
      // The owner's status is checked as on every session request (owner_inactive otherwise).
      resolvePrincipal(found.owner, { authenticatedBy: "session" });
      return { user: toPublicUser(found.owner), csrfToken, expiresAt: found.session.expiresAt };
    },

    /** Ends the session; audited as `user.signed_out`, as its start was `user.signed_in`. */
    async signOut(principal: Principal & { sessionId: string }): Promise<void> {
      const now = clock.now();
      await storage.transaction(async (tx) => {
        await tx.sessions.delete(principal.organizationId, principal.sessionId);
        await recordAuditEvent(deps, tx, { organizationId: principal.organizationId, actor: principal, action: "user.signed_out", target: { type: "user", id: principal.userId }, outcome: "success", now });
      });
    },

    async me(principal: Principal): Promise<User> {
      const user = await storage.read((tx) => tx.users.findById(principal.organizationId, principal.userId));
      if (!user) throw new CaseKitError("invalid_session");
      return toPublicUser(user);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
