/**
 * The SHA-256 of archive files, remembered by file identity (device, inode, size, modification and change times)
 * in a small JSON file in the index folder, so a large archive is not read in full at every start just to find its
 * index. The change time moves on every write and cannot be set back by tools that copy times, so a file whose
 * identity matches still has the bytes that were hashed; a file written within two seconds of being hashed is hashed
 * again, because coarse file-system clocks could give two writes the same times (git's "racy clean" rule).
 */
import { z } from 'zod';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Hashes remembered from files modified closer than this to their hashing are not trusted. */
const RACY_MS = 2_000;

/** A remembered hash: the identity of the file it was computed from, when, and the hash. */
const REMEMBERED = z.object({
  dev: z.string(),
  ino: z.string(),
  size: z.string(),
  mtimeNs: z.string(),
  ctimeNs: z.string(),
  hashedAtMs: z.number(),
  sha256: z.string(),
});
type Remembered = z.infer<typeof REMEMBERED>;

/** The cache file; its entries are read one by one, so a damaged entry costs only its own file's hash. */
const HASH_CACHE_FILE = z.object({ version: z.literal(1), files: z.record(z.string(), z.unknown()) });

interface HashCache {
  version: 1;
  files: Record<string, Remembered>;
}

/** The SHA-256 of a file's bytes, read as a stream. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function identity(path: string): Promise<Omit<Remembered, 'hashedAtMs' | 'sha256'>> {
  const info = await stat(path, { bigint: true });
  return {
    dev: String(info.dev),
    ino: String(info.ino),
    size: String(info.size),
    mtimeNs: String(info.mtimeNs),
    ctimeNs: String(info.ctimeNs),
  };
}

async function readCache(file: string): Promise<HashCache> {
  try {
    const parsed = HASH_CACHE_FILE.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (parsed.success) {
      const files = Object.entries(parsed.data.files).flatMap(([path, entry]) => {
        const remembered = REMEMBERED.safeParse(entry);
        return remembered.success ? [[path, remembered.data] as const] : [];
      });
      return { version: 1, files: Object.fromEntries(files) };
    }
  } catch {
    // Missing or damaged: every file is hashed again.
  }
  return { version: 1, files: {} };
}

/**
 * The SHA-256 of each file, from `cacheFile` when the file is unchanged since it was hashed, else by reading it.
 * The cache is rewritten (atomically) when a hash was computed; a cache that cannot be written only costs time.
 */
export async function hashFiles(paths: readonly string[], cacheFile: string): Promise<string[]> {
  const cache = await readCache(cacheFile);
  let changed = false;
  const hashes: string[] = [];
  for (const path of paths) {
    const key = resolve(path);
    const id = await identity(path);
    const known = cache.files[key];
    const mtimeMs = Number(BigInt(id.mtimeNs) / 1_000_000n);
    const same =
      known !== undefined &&
      known.dev === id.dev &&
      known.ino === id.ino &&
      known.size === id.size &&
      known.mtimeNs === id.mtimeNs &&
      known.ctimeNs === id.ctimeNs &&
      known.hashedAtMs - mtimeMs >= RACY_MS;
    if (same) {
      hashes.push(known.sha256);
      continue;
    }
    const hashedAtMs = Date.now();
    const sha256 = await sha256File(path);
    // The file changed while it was read: use the hash, but do not remember it.
    const after = await identity(path);
    if (after.ctimeNs === id.ctimeNs && after.size === id.size) {
      cache.files[key] = { ...id, hashedAtMs, sha256 };
      changed = true;
    }
    hashes.push(sha256);
  }
  if (changed) {
    try {
      await mkdir(dirname(cacheFile), { recursive: true });
      const temp = `${cacheFile}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
      await writeFile(temp, JSON.stringify(cache));
      await rename(temp, cacheFile).catch(async (err: unknown) => {
        await rm(temp, { force: true });
        throw err;
      });
    } catch {
      // A read-only or full index folder: the hashes are right, only not remembered.
    }
  }
  return hashes;
}
