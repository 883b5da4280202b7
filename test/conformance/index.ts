// casekit/conformance: the storage conformance suite, for anyone who writes an adapter of the
// core's storage port. Run it with vitest (a peer dependency of this entry point only):
//
//   import { describeStorage } from "casekit/conformance";
//   describeStorage("my adapter", async () => createMyStorage(), (storage) => storage.close());
export { describeStorage } from "./storage-suite.js";
export type { RawAccess, StorageSuiteOptions } from "./suite-context.js";
