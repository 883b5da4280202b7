/**
 * The access version suite on PostgreSQL: three casekit instances (three pools, as three hosts
 * would run) on one schema; test/conformance/access-version-suite.ts says what it proves. Same
 * server and CI rule as the PostgreSQL conformance suite: with CI=true an unreachable server fails
 * the run.
 */
import { describeAccessVersion } from "./access-version-suite.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { postgresSharedSchema } from "../helpers/postgres-hosts.js";

const run = await postgresShouldRun("postgres access version");
const shared = postgresSharedSchema("casekit_access", (host) => ({ accessCacheEntries: host < 2 ? 10_000 : 0 }));

describeAccessVersion("PostgreSQL, three pools on one schema", shared, { skip: !run });
