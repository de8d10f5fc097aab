/**
 * The SQLite driver for this Node. better-sqlite3 up to 12 wraps its objects in Node's `ObjectWrap`, whose
 * destructor aborts the process on Node 24.19 and later when a statement is garbage-collected outside a JavaScript
 * context ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook); 13 is built on Node-API and does
 * not, but needs Node 22. So Node 22 and later load 13 (installed as `better-sqlite3-napi`, prebuilt in its package)
 * and Node 20 loads 12 (compiled at install). Both have the same API.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const load = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The package name of the driver this Node loads. */
export const SQLITE_DRIVER = NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

const Database = load(SQLITE_DRIVER) as typeof BetterSqlite3;
export default Database;
