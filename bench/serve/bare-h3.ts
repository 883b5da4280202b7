/**
 * The baseline: a bare h3 v2 JSON endpoint on node:http, nothing else, in a process of its own
 * (built by scripts.ts: `node <built bare-h3.mjs> <port>`). `/ping` is what the load hits; `/livez`
 * tells the harness it is up.
 */
import { createServer } from "node:http";
import { H3, toNodeHandler } from "h3";

const port = Number(process.argv[2]);
const app = new H3().get("/ping", () => ({ status: "ok" })).get("/livez", () => ({ status: "ok" }));
const server = createServer(toNodeHandler(app));
server.listen(port, "127.0.0.1");
process.once("SIGTERM", () => server.close(() => process.exit(0)));
