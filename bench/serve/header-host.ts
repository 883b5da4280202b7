/**
 * What the three `X-RateLimit-*` headers cost to write, apart from deciding them: a bare node:http
 * host that answers `/plain` as `GET /api/v1/health` answers an unmetered key (the same headers,
 * a body of the same size) and `/limited` with the three headers added, at the sizes the metering
 * host sends (the bench's limit of 10⁹, a remaining count that goes down, a reset in Unix seconds).
 * The two run by turns like the metered and unmetered keys; their difference is what node:http
 * and the kernel charge for three more headers: a floor under the metering figure that no limiter
 * can go below while the spec requires the headers (built by scripts.ts:
 * `node <built header-host.mjs> <port>`).
 */
import { createServer } from "node:http";

const port = Number(process.argv[2]);
const body = JSON.stringify({ status: "ok", service: "casekit", version: "0.1.0", timestamp: new Date().toISOString() });
const length = String(Buffer.byteLength(body));
const limit = String(1_000_000_000);
const reset = String(Math.ceil(Date.now() / 1000) + 60);
let remaining = 999_999_999;

const server = createServer((request, response) => {
  const headers = ["content-type", "application/json; charset=utf-8", "x-request-id", "req_01m8n0fsta3ggwzsfjnvbpkz2p", "cache-control", "no-store", "x-content-type-options", "nosniff"];
  if (request.url === "/limited") headers.push("x-ratelimit-limit", limit, "x-ratelimit-remaining", String(remaining--), "x-ratelimit-reset", reset);
  headers.push("content-length", length);
  request.resume();
  request.on("end", () => {
    response.writeHead(200, headers);
    response.end(body);
  });
});
server.listen(port, "127.0.0.1");
process.once("SIGTERM", () => server.close(() => process.exit(0)));
