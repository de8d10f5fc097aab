/**
 * `npm run bench [-- <name> [args...]]`: runs one benchmark module from bench/<name>.ts, or every one in order.
 * Each module exports `run(args: string[]): Promise<void>` and prints its own table; all figures are ratios measured
 * side by side in the same run.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();

const [name, ...args] = process.argv.slice(2);
// Short names for benches whose file names say more (`npm run bench -- import` runs bench/archive-import.ts).
const ALIASES: Record<string, string> = { import: 'archive-import' };
const targets = name ? [ALIASES[name] ?? name] : available;
for (const target of targets) {
  if (!available.includes(target)) {
    process.stderr.write(`unknown benchmark "${target}"; available: ${available.join(', ')}\n`);
    process.exit(2);
  }
  const mod = (await import(`./${target}.ts`)) as { run: (args: string[]) => Promise<void> };
  process.stdout.write(`\n== bench ${target} ==\n`);
  await mod.run(args);
}
