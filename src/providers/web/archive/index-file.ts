/**
 * Index files built once and shared by every process: a lock file so only one process builds a given index (the
 * others wait for it), a temporary file renamed into place so no process ever opens a half-built index, and a
 * clean-up of the indexes an archive no longer needs.
 */
import { z } from 'zod';
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { readFile, readdir, rename, rm, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

/** A lock not refreshed for this long belongs to a builder that is gone (another host, or a frozen process). */
const STALE_LOCK_MS = 10 * 60_000;
/** How often a builder refreshes its lock's time. */
const HEARTBEAT_MS = 15_000;
/** How often a waiting process looks whether the build it waits for is done. */
const WAIT_POLL_MS = 200;

/** What a lock file holds: the builder's process and host. */
const LOCK_OWNER = z.object({ pid: z.number(), host: z.string() });
type LockOwner = z.infer<typeof LOCK_OWNER>;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** True when the lock's builder has gone away: its process is dead on this host, or it stopped refreshing the lock. */
async function lockIsStale(lock: string): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(lock, 'utf8'), stat(lock)]);
    if (Date.now() - info.mtimeMs > STALE_LOCK_MS) return true;
    const owner = LOCK_OWNER.safeParse(JSON.parse(text));
    return owner.success && owner.data.host === hostname() && !alive(owner.data.pid);
  } catch (err) {
    // A lock being written this instant reads as empty; only a vanished one is "stale" (there is nothing to wait for).
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Temporary files of this module name their builder's pid; those of dead builders are litter. */
function tempOwner(name: string): number | null {
  const m = /\.tmp-(\d+)-[0-9a-f]+$/.exec(name);
  return m?.[1] ? Number(m[1]) : null;
}

export interface BuildOnceOptions {
  /** Waits between looks at a lock held by another process; defaults to a timer. */
  wait?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * Makes sure `target` exists, building it with `build(tempPath)` when it does not. Exactly one process builds a
 * given target at a time; the others wait and then use its result. Answers whether this call built it.
 */
export async function buildOnce(
  target: string,
  build: (tempPath: string) => Promise<unknown>,
  options: BuildOnceOptions = {},
): Promise<{ built: boolean }> {
  const wait = options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const lock = `${target}.lock`;
  await mkdir(dirname(target), { recursive: true });
  for (;;) {
    options.signal?.throwIfAborted();
    if (await exists(target)) return { built: false };
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await lockIsStale(lock)) await rm(lock, { force: true });
      else await wait(WAIT_POLL_MS);
      continue;
    }
    closeSync(fd);
    const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const heartbeat = setInterval(() => {
      const now = new Date();
      utimes(lock, now, now).catch(() => undefined);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    try {
      await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname() } satisfies LockOwner));
      // Another process may have finished between our look and our lock.
      if (await exists(target)) return { built: false };
      await build(temp);
      const written = openSync(temp, 'r+');
      try {
        fsyncSync(written);
      } finally {
        closeSync(written);
      }
      await rename(temp, target);
      return { built: true };
    } finally {
      clearInterval(heartbeat);
      await rm(temp, { force: true });
      await rm(`${temp}-journal`, { force: true });
      await rm(lock, { force: true });
    }
  }
}

/**
 * `buildOnce`, then opens the file with `openFile`. A file that cannot be opened although it was already there (a
 * damaged file) is removed and built again, once.
 */
export async function buildAndOpen<T>(
  target: string,
  build: (tempPath: string) => Promise<unknown>,
  openFile: (path: string) => T,
  options: BuildOnceOptions = {},
): Promise<{ value: T; built: boolean }> {
  const first = await buildOnce(target, build, options);
  try {
    return { value: openFile(target), built: first.built };
  } catch (err) {
    if (first.built) throw err;
    await rm(target, { force: true });
    const again = await buildOnce(target, build, options);
    return { value: openFile(target), built: again.built };
  }
}

/**
 * Cleans `dir` of the files named `prefix...`: finished index files that `keep` does not want, temporary files of
 * builders no longer running, and locks left by builders that are gone. Files another process still has open stay
 * readable to it (POSIX keeps an unlinked file until it is closed). Answers the names removed.
 */
export async function removeStaleIndexes(
  dir: string,
  prefix: string,
  keep: (name: string) => boolean,
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const owner = tempOwner(name);
    const stale =
      owner !== null ? !alive(owner) : name.endsWith('.lock') ? await lockIsStale(join(dir, name)) : !keep(name);
    if (!stale) continue;
    try {
      await rm(join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // A file the system will not remove now (open elsewhere, on some systems) goes at a later clean-up.
    }
  }
  return removed;
}
