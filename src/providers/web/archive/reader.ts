/**
 * Reads WARC files (ISO 28500; `.warc` or `.warc.gz`, one file or a folder of them) into archived HTTP records with
 * their payloads. The server does not: it reads through the on-disk index (index.ts); these whole-file reads serve
 * tools, tests and benchmarks.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArchivedRecord } from './record.ts';
import { scanWarcFile } from './warc-scan.ts';

export type { ArchivedRecord } from './record.ts';

const WARC_FILE = /\.warc(\.gz)?$/i;

/** The WARC files at a path: the file itself, or every `.warc`/`.warc.gz` under a folder, sorted by path. */
export async function listWarcFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (info.isFile()) return [path];
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && WARC_FILE.test(entry.name)) found.push(full);
    }
  };
  await walk(path);
  return found.sort();
}

/** Every HTTP record of one WARC file, in file order. */
export async function readWarcFile(file: string): Promise<ArchivedRecord[]> {
  const out: ArchivedRecord[] = [];
  for await (const { record } of scanWarcFile(file)) out.push(record);
  return out;
}

/** Every HTTP record under a path (a WARC file or a folder searched recursively), files in path order. */
export async function readArchiveRecords(path: string): Promise<{ files: string[]; records: ArchivedRecord[] }> {
  const files = await listWarcFiles(path);
  const records: ArchivedRecord[] = [];
  for (const file of files) records.push(...(await readWarcFile(file)));
  return { files, records };
}
