// casekit/webhooks: delivering webhooks from a process of your own, as `casekit serve` and
// `casekit worker` do. Named exports only.
export { startDispatchLoop, startWebhookWorker } from "./worker.js";
export type { DispatchLoop, WebhookWorkerOptions } from "./worker.js";
export { createNodeTransport, transportDefaults } from "../adapters/outbound/node-transport.js";
export type { NodeTransport, NodeTransportOptions } from "../adapters/outbound/node-transport.js";
