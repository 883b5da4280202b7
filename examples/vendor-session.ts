// A vendor's product serving casekit to its own signed-in users: its own user table and cookie
// sessions, casekit behind the `identify` seam, and no casekit API key anywhere.
// Run: node --import tsx examples/vendor-session.ts   then sign in as alice (analyst) or bob (read-only):
//   curl -c jar -H 'content-type: application/json' -d '{"username":"bob","password":"bob-password-123"}' http://127.0.0.1:3000/login
//   curl -b jar http://127.0.0.1:3000/casekit/api/v1/cases
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { H3, HTTPError, deleteCookie, getCookie, readBody, setCookie } from "h3";
import { toNodeHandler } from "h3/node";
import { createCaseKit } from "casekit";
import type { CaseKit, UserRole } from "casekit";
import { createSqliteStorage } from "casekit/sqlite";
import { mountCaseKit } from "casekit/h3";
import type { HostIdentity } from "casekit/h3";

/** The vendor's own users, each mapped to a casekit user (created below) of the vendor's organization. */
const vendorUsers = [
  { username: "alice", password: "alice-password-123", role: "analyst" as UserRole },
  { username: "bob", password: "bob-password-123", role: "read_only" as UserRole },
];

const digest = (text: string) => createHash("sha256").update(text).digest();
const sessionCookie = "vendor_session";

export async function start(port = 0, host = "127.0.0.1") {
  const storage = createSqliteStorage({ path: ":memory:" });
  await storage.migrate();
  const kit = createCaseKit({ storage, config: { keyHashSecret: process.env.CASEKIT_KEY_HASH_SECRET ?? "example-key-hash-secret-0123456789abcdef" } });
  const { organizationId, accounts } = await provision(kit);

  /** session token → who signed in */
  const sessions = new Map<string, HostIdentity & { username: string }>();

  const app = new H3();
  app.post("/login", async (event) => {
    const { username, password } = ((await readBody(event)) ?? {}) as { username?: string; password?: string };
    const account = accounts.find((a) => a.username === username);
    if (!account || !timingSafeEqual(digest(String(password)), account.passwordDigest)) throw new HTTPError({ status: 401, message: "Wrong username or password" });
    const token = randomBytes(32).toString("base64url");
    sessions.set(token, { username: account.username, organizationId, userId: account.casekitUserId });
    // SameSite=Strict, and casekit accepts only JSON bodies: no cross-site request can write.
    setCookie(event, sessionCookie, token, { httpOnly: true, sameSite: "strict", path: "/" });
    return { username: account.username, role: account.role };
  });
  app.post("/logout", (event) => {
    sessions.delete(getCookie(event, sessionCookie) ?? "");
    deleteCookie(event, sessionCookie, { path: "/" });
    return { ok: true };
  });

  // casekit under /casekit: who the caller is comes from the vendor's session, never from a key.
  // Everything else (role caps scopes, tenant, TLP, the user being active) casekit still checks.
  mountCaseKit(app, "/casekit", kit, {
    identify: (request) => {
      const session = sessions.get(cookieOf(request, sessionCookie) ?? "");
      return session && { organizationId: session.organizationId, userId: session.userId };
    },
  });

  const server = http.createServer(toNodeHandler(app));
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    await storage.close();
  };
  return { url, apiBaseUrl: `${url}/casekit/api/v1`, organizationId, users: vendorUsers.map(({ username, password }) => ({ username, password })), close };
}

/** The vendor's organization in casekit, and a casekit user per vendor user. No key is kept. */
async function provision(kit: CaseKit) {
  const init = await kit.setup.initOrganization({ organizationName: "Vendor customer", email: "admin@vendor.example" });
  const organizationId = init.organization.id;
  const admin = await kit.principalFor({ organizationId, userId: init.user.id });
  // `init` makes an admin key for the CLI's sake; this deployment has no use for it.
  for (const key of (await kit.keys.list(admin, {})).data) await kit.keys.delete(admin, key.id);
  const accounts = [];
  for (const user of vendorUsers) {
    const created = await kit.users.create(admin, { email: `${user.username}@vendor.example`, name: user.username, role: user.role });
    accounts.push({ username: user.username, role: user.role, passwordDigest: digest(user.password), casekitUserId: created.id });
  }
  return { organizationId, accounts };
}

function cookieOf(request: Request, name: string): string | undefined {
  for (const pair of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = pair.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url, users, close } = await start(Number(process.argv[2] ?? 3000));
  console.log(`vendor app on ${url} (casekit under ${url}/casekit/api/v1)`);
  for (const user of users) console.log(`  sign in: POST ${url}/login {"username":"${user.username}","password":"${user.password}"}`);
  process.once("SIGINT", () => void close().then(() => process.exit(0)));
}
