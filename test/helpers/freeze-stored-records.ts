/**
 * Setup file of every project: records read from storage as JSON text are frozen whole, nested
 * arrays and objects too, not only their own members as in production (core/stored-json.ts). An
 * answer writes such a record's stored text, so code that changed one in place would answer stale
 * data; here it throws instead, in whichever test reaches it.
 */
import { freezeNestedStoredRecords } from "../../core/stored-json.js";

freezeNestedStoredRecords();
