/**
 * The definitions version suite on SQLite: three storages on one database file, as three
 * processes on one host would open it (test/conformance/definitions-version-suite.ts says what it
 * proves).
 */
import { describeDefinitionsVersion } from "../conformance/definitions-version-suite.js";
import { sqliteSharedFile } from "../helpers/sqlite-hosts.js";

describeDefinitionsVersion("SQLite, three storages on one file", sqliteSharedFile("casekit-definitions-").hosts((host) => ({ definitionsCacheEntries: host < 2 ? 1_000 : 0 })));
