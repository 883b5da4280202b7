/**
 * The definitions version suite on PostgreSQL: three casekit instances (three pools, as three
 * hosts would run) on one schema; test/conformance/definitions-version-suite.ts says what it
 * proves. Same server and CI rule as the PostgreSQL conformance suite: with CI=true an unreachable
 * server fails the run.
 */
import { describeDefinitionsVersion } from "./definitions-version-suite.js";
import { postgresShouldRun } from "../helpers/postgres.js";
import { postgresSharedSchema } from "../helpers/postgres-hosts.js";

const run = await postgresShouldRun("postgres definitions version");
const shared = postgresSharedSchema("casekit_definitions", (host) => ({ definitionsCacheEntries: host < 2 ? 1_000 : 0 }));

describeDefinitionsVersion("PostgreSQL, three pools on one schema", shared, { skip: !run });
