/**
 * The `unit` project's setup file (vitest.config.ts): a unit test boots nothing, so here listening, connecting,
 * spawning a process, starting a worker thread and opening a SQLite database throw. A test file that the static rule
 * of test/helpers/projects.ts let through but that does one of those fails with a message naming what it did; it
 * belongs in the main project (add it to NOT_UNIT there, with the reason).
 */
import childProcess from 'node:child_process';
import { createRequire, Module, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

function refuse(what: string): never {
  throw new Error(
    `unit tests boot nothing, and this one ${what}: move the file to the main project ` +
      '(NOT_UNIT in test/helpers/projects.ts, with the reason)',
  );
}

net.Server.prototype.listen = function listen(): never {
  refuse('listens on a socket');
};
net.Socket.prototype.connect = function connect(): never {
  refuse('opens a connection');
};
// Every asynchronous spawn (spawn, exec, execFile, fork) goes through ChildProcess#spawn, internal to Node.
(childProcess.ChildProcess.prototype as unknown as { spawn: () => never }).spawn = function spawn(): never {
  refuse('spawns a process');
};
for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`spawns a process (${name})`);
}
(workerThreads as { Worker: unknown }).Worker = class {
  constructor() {
    refuse('starts a worker thread');
  }
};
syncBuiltinESMExports();

// src/sqlite-driver.ts loads the driver with Node's require: a module put in require's cache first (the driver itself
// is never loaded) answers a constructor that refuses.
const load = createRequire(import.meta.url);
for (const driver of ['better-sqlite3', 'better-sqlite3-napi']) {
  let path: string;
  try {
    path = load.resolve(driver);
  } catch {
    continue;
  }
  const refusing = new Module(path);
  refusing.filename = path;
  refusing.loaded = true;
  refusing.exports = function Database(): never {
    refuse('opens a SQLite database');
  };
  load.cache[path] = refusing;
}
