/**
 * `npm run bench -- extraction [--dataset DIR] [--per-type N]`: main-content F1 and time per page of our extractor
 * against Readability.js on linkedom, side by side in one process, scored with each dataset's published scorer
 * (ports in bench/lib/extraction-scorers.ts). Without --dataset it runs ../shared/datasets/zyte-aeb and wcxb-dev;
 * with it, any folder in the WCXB layout, and the last line reads `extraction F1 <ours> vs <readability> on <N> pages`.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { datasetsRoot, loadWcxb, loadZyte } from './lib/extraction-datasets.ts';
import { type Row, formatTable, runBoth, wcxbRows, zyteRow } from './lib/extraction-run.ts';

interface Args {
  dataset: string | null;
  perType: number;
}

function parseArgs(args: readonly string[]): Args {
  const out: Args = { dataset: null, perType: Infinity };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--dataset') out.dataset = args[++i] ?? null;
    else if (a === '--per-type') out.perType = Number(args[++i]);
  }
  return out;
}

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

function wcxb(name: string, dir: string, perType: number): Row[] {
  const pages = loadWcxb(dir, perType);
  const results = runBoth(pages.map((p) => ({ id: p.id, url: p.url, pageType: p.pageType, html: p.html })));
  return wcxbRows(name, pages.map((p) => p.mainContent), results);
}

function zyte(dir: string): Row {
  const pages = loadZyte(dir);
  const results = runBoth(pages.map((p) => ({ id: p.id, url: p.url, pageType: 'article', html: p.html })));
  return zyteRow('zyte-aeb', pages.map((p) => p.articleBody), results);
}

export async function run(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  if (args.dataset) {
    const dir = resolve(args.dataset);
    if (!existsSync(join(dir, 'html'))) throw new Error(`no html/ folder in ${dir}`);
    const rows = wcxb(basename(dir), dir, args.perType);
    log(formatTable(rows));
    const all = rows[rows.length - 1] as Row;
    log(`extraction F1 ${all.f1Ours.toFixed(3)} vs ${all.f1Reference.toFixed(3)} on ${all.n} pages`);
    return;
  }
  const root = datasetsRoot();
  const rows = [zyte(join(root, 'zyte-aeb')), ...wcxb('wcxb-dev', join(root, 'wcxb-dev'), args.perType)];
  log(formatTable(rows));
  const z = rows[0] as Row;
  const w = rows[rows.length - 1] as Row;
  log(`zyte-aeb: F1 ${z.f1Ours.toFixed(3)} vs ${z.f1Reference.toFixed(3)}; wcxb-dev: F1 ${w.f1Ours.toFixed(3)} vs ${w.f1Reference.toFixed(3)}`);
}
