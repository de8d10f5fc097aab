/**
 * The web archive at scale: a generated archive of realistic pages (10,000 by default; deterministic, seeded) served
 * by the on-disk SQLite FTS5 index against the in-memory BM25F index it replaced (bench/lib/archive-memory.ts), side
 * by side in one run:
 *
 *  - index build time: the server's own providers (src/compose.ts, analysis extractor) warming on an empty index
 *    folder, against loading and indexing the archive in memory;
 *  - start-up once indexed: a child process from its start to the first organic search answered: the real server
 *    (createApp, listening) on the built index (its second start, as every restart), against a process that must
 *    load and index in memory again;
 *  - RSS of that process after 100 searches (and its peak), read in the process itself;
 *  - archive search ms per query over the same 100 queries.
 *
 * Every figure of a process is measured in its own child process, so one does not inherit the other's heap.
 * `node --import tsx bench/lib/archive-scale.ts --child <mode> <json>` is how the children are run.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeBenchArchive } from './bench-warc.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SEARCHES = 100;

// ---------------------------------------------------------------------------------------------------------------
// The generated archive.

/** mulberry32: a small seeded PRNG, so the archive and queries are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Topic {
  name: string;
  words: string[];
}

const TOPICS: Topic[] = [
  [
    'plumbing',
    'plumber pipe leak drain water heater valve faucet toilet sewer clog shutoff pressure fitting copper pex tankless flush repair emergency install',
  ],
  [
    'espresso',
    'espresso machine grinder portafilter tamper crema shot extraction boiler steam wand milk latte burr dose basket pressure bean roast',
  ],
  [
    'sourdough',
    'sourdough starter flour dough loaf bake oven crust crumb hydration levain proof ferment knead rye yeast banneton scoring discard',
  ],
  [
    'solar',
    'solar panel inverter battery roof installer rebate credit kilowatt array grid meter storage financing lease efficiency shade permit warranty',
  ],
  [
    'heat pumps',
    'heat pump furnace hvac ductless minisplit compressor refrigerant thermostat btu efficiency seer heating cooling duct install winter coil',
  ],
  [
    'python',
    'python asyncio coroutine task await event loop queue thread process library module function package pip virtualenv typing exception',
  ],
  [
    'gardening',
    'garden soil compost seed seedling tomato pepper mulch raised bed fertilizer prune harvest perennial annual weed irrigation greenhouse',
  ],
  [
    'running',
    'running runner marathon pace shoe training interval tempo race mile stride cadence recovery injury hill trail endurance warmup',
  ],
  [
    'photography',
    'camera lens aperture shutter iso exposure sensor tripod portrait landscape flash focus zoom mirrorless raw editing composition',
  ],
  [
    'personal finance',
    'budget savings retirement index fund stock bond dividend mortgage loan credit score debt interest tax account brokerage emergency',
  ],
  [
    'dogs',
    'dog puppy training leash crate treat breed vet vaccine grooming walk bark chew kibble adoption shelter obedience harness',
  ],
  [
    'travel',
    'travel flight hotel passport itinerary luggage airport visa beach hostel train booking tour museum budget backpack jetlag',
  ],
  [
    'woodworking',
    'wood saw chisel plane joint dovetail glue clamp lumber oak walnut sander finish router drill workbench jig mortise',
  ],
  [
    'cycling',
    'bike bicycle cycling gear chain tire saddle helmet commute derailleur brake frame wheel cadence climb ride pedal',
  ],
  [
    'home cooking',
    'recipe pan skillet saute roast chicken garlic onion sauce simmer braise stock seasoning knife dinner vegetable pasta',
  ],
  [
    'web development',
    'javascript typescript react component browser css html server api request response cache deploy bundle framework render',
  ],
  [
    'skincare',
    'skin moisturizer sunscreen serum cleanser acne retinol niacinamide spf hydration exfoliate toner routine dermatologist pore',
  ],
  [
    'electric cars',
    'electric car battery charger charging range kwh tesla plug mileage motor regenerative hybrid lease incentive highway station',
  ],
  [
    'coffee brewing',
    'coffee pourover kettle filter brew grind bloom aeropress chemex ratio water temperature roast bean drip carafe',
  ],
  [
    'home insurance',
    'insurance policy premium deductible claim coverage flood liability homeowner adjuster quote damage roof agent renewal',
  ],
].map(([name, words]) => ({ name: name!, words: words!.split(' ') }));

const COMMON = (
  'the of and to a in is it you that for was on are with as be this have from or one had by but not what all were ' +
  'when we there can an your which their said if do will each about how up out them then she many some so these ' +
  'would other into has more her two like him see time could no make than first been its who now people my made ' +
  'over did down only way find use may long very after called just where most know get through back much before ' +
  'go good new write our used me man too any day same right look think also around another came come work three ' +
  'word must because does part even place well such here take why things help put years different away again off ' +
  'went old number great tell men say small every found still between name should home big give air line set own ' +
  'under read last never us left end along while might next sound below saw something thought both few those ' +
  'always looked show large often together asked house world going want school important until form food keep ' +
  'children feet land side without boy once animals life enough took sometimes four head above kind began almost ' +
  'live page got earth need far hand high year mother light parts country father let night following picture ' +
  'being study second eyes soon times story boys since white days ever paper hard near sentence better best across ' +
  'during today others however sure means knew try told young miles sun ways thing whole hear example heard several ' +
  'change answer room sea against top turned learn point city play toward five using himself usually cost price ' +
  'simple easy quick guide review tips mistakes beginner expert cheap budget premium compare versus worth'
).split(' ');

const CITIES = [
  'Austin, Texas',
  'Round Rock, Texas',
  'Denver, Colorado',
  'Boulder, Colorado',
  'Portland, Oregon',
  'Seattle, Washington',
  'Minneapolis, Minnesota',
  'Chicago, Illinois',
  'Phoenix, Arizona',
  'Tampa, Florida',
  'Atlanta, Georgia',
  'Raleigh, North Carolina',
  'Columbus, Ohio',
  'Madison, Wisconsin',
  'Boise, Idaho',
  'Salt Lake City, Utah',
];

/** A Zipf-like pick: low ranks much more often, as words are in real text. */
function zipf<T>(rand: () => number, list: readonly T[]): T {
  const i = Math.floor(list.length * Math.pow(rand(), 2.2));
  return list[Math.min(i, list.length - 1)]!;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

interface GeneratedPage {
  url: string;
  html: string;
}

/** One page: a site's chrome around an article of 300 to 3,000 words on its topic. */
function makePage(i: number, rand: () => number): GeneratedPage {
  const topic = TOPICS[i % TOPICS.length]!;
  const siteNo = Math.floor(rand() * 25);
  const host = `${topic.words[siteNo % topic.words.length]}${['hub', 'guide', 'pro', 'central', 'daily'][siteNo % 5]}${siteNo}.example.com`;
  const city = rand() < 0.25 ? CITIES[Math.floor(rand() * CITIES.length)]! : null;
  const key = [zipf(rand, topic.words), zipf(rand, topic.words), zipf(rand, topic.words)];
  const title = `${cap(zipf(rand, ['best', 'how to choose', 'complete guide to', 'cheap', 'review of', 'tips for']))} ${key.join(' ')}${city ? ` in ${city.split(',')[0]}` : ''}`;
  const words = Math.round(300 * Math.pow(10, rand()));
  const sentence = () => {
    const n = 8 + Math.floor(rand() * 18);
    const out: string[] = [];
    for (let w = 0; w < n; w++) {
      const r = rand();
      out.push(r < 0.3 ? zipf(rand, topic.words) : r < 0.33 ? String(Math.floor(rand() * 2000)) : zipf(rand, COMMON));
    }
    if (city && rand() < 0.1) out.push('in', city.split(',')[0]!);
    return `${cap(out.join(' '))}.`;
  };
  const parts: string[] = [];
  let count = 0;
  while (count < words) {
    parts.push(`<h2>${cap(zipf(rand, topic.words))} ${zipf(rand, topic.words)} ${zipf(rand, COMMON)}</h2>`);
    const paragraphs = 2 + Math.floor(rand() * 4);
    for (let p = 0; p < paragraphs && count < words; p++) {
      const sentences: string[] = [];
      for (let s = 3 + Math.floor(rand() * 5); s > 0; s--) sentences.push(sentence());
      const text = sentences.join(' ');
      count += text.split(' ').length;
      parts.push(`<p>${text}</p>`);
    }
    if (rand() < 0.3) {
      const items = Array.from({ length: 3 + Math.floor(rand() * 4) }, () => `<li>${sentence()}</li>`);
      parts.push(`<ul>${items.join('')}</ul>`);
    }
  }
  const nav = topic.words
    .slice(0, 6)
    .map((w) => `<a href="/${w}/">${cap(w)}</a>`)
    .join(' ');
  const url = `https://${host}/${topic.name.replace(/ /g, '-')}/${key.join('-')}-${i}/`;
  const html =
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title} | ${host}</title>` +
    `<meta name="description" content="${sentence()}"><link rel="canonical" href="${url}"></head><body>` +
    `<div class="cookie-banner">We use cookies to improve your experience. <button>Accept</button></div>` +
    `<header><a href="/">${host}</a><nav>${nav}</nav></header>` +
    `<main><article><h1>${title}</h1><p class="byline">By ${cap(zipf(rand, COMMON))} ${cap(zipf(rand, COMMON))}</p>` +
    `${parts.join('')}</article></main>` +
    `<aside class="sidebar"><h3>Related</h3><ul><li><a href="/a/">${sentence()}</a></li><li><a href="/b/">${sentence()}</a></li></ul></aside>` +
    `<footer><p>© 2024 ${host}. All rights reserved.</p><nav><a href="/privacy/">Privacy</a> <a href="/terms/">Terms</a></nav></footer>` +
    `</body></html>`;
  return { url, html };
}

/** Writes a `.warc.gz` of `pages` generated pages (one gzip member per record, fixed dates and record ids). */
export async function generateArchive(file: string, pages: number, seed = 20240601): Promise<void> {
  const rand = prng(seed);
  function* generated() {
    for (let i = 0; i < pages; i++) {
      const page = makePage(i, rand);
      yield { url: page.url, html: Buffer.from(page.html), contentType: 'text/html; charset=utf-8' };
    }
  }
  await writeBenchArchive(file, 'bench.warc.gz', 'agent-api-bench-archive', generated());
}

/** Queries of two to four topic words, a quarter with a location, the same on every run. */
export function benchQueries(count: number, seed = 7): { query: string; location?: string }[] {
  const rand = prng(seed);
  return Array.from({ length: count }, () => {
    const topic = TOPICS[Math.floor(rand() * TOPICS.length)]!;
    const words = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => zipf(rand, topic.words));
    const location = rand() < 0.25 ? CITIES[Math.floor(rand() * CITIES.length)] : undefined;
    return { query: words.join(' '), ...(location ? { location } : {}) };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The child processes.

interface ChildReport {
  /** Milliseconds from the process's start to the first search answered (or to the index built, for `build`). */
  readyMs: number;
  /** The part of readyMs spent building or loading the index. */
  indexMs?: number;
  searchMsPerQuery?: number;
  rssMb: number;
  peakRssMb: number;
  results?: number;
  /** Where the start-up went (ms): node and tsx booting, module imports, app creation to listening, first search. */
  phases?: Record<string, number>;
}

/** Peak resident set size of this process (VmHWM), in MB; the current RSS where /proc is missing. */
function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m?.[1]) return Number(m[1]) / 1024;
  } catch {
    // Not Linux.
  }
  return process.memoryUsage().rss / 1024 / 1024;
}

interface ChildArgs {
  archive: string;
  indexDir: string;
  dbPath: string;
  queries: { query: string; location?: string }[];
}

type Search = (q: { query: string; location?: string }) => Promise<number>;

/** Times `SEARCHES` searches after the first, which was the start-up measure. */
async function timeSearches(
  search: Search,
  queries: ChildArgs['queries'],
): Promise<{ perQuery: number; results: number }> {
  let results = 0;
  const started = performance.now();
  for (let i = 0; i < SEARCHES; i++) results += await search(queries[i % queries.length]!);
  return { perQuery: (performance.now() - started) / SEARCHES, results };
}

const childModes: Record<string, (args: ChildArgs) => Promise<ChildReport>> = {
  /** The server's providers warming on an empty index folder: builds both indexes. */
  async build(args) {
    const [{ buildProviders }, { loadConfig }, { systemClock }] = await Promise.all([
      import('../../src/compose.ts'),
      import('../../src/config.ts'),
      import('../../src/clock.ts'),
    ]);
    const config = loadConfig({
      AGENT_API_DB: args.dbPath,
      AGENT_API_WEB_ARCHIVE: args.archive,
      AGENT_API_ARCHIVE_INDEX_DIR: args.indexDir,
      AGENT_API_OFFLINE: '1',
    });
    const built = buildProviders(config, { clock: systemClock });
    const started = performance.now();
    await built.warm();
    const indexMs = performance.now() - started;
    await built.close();
    return { readyMs: performance.now(), indexMs, rssMb: process.memoryUsage().rss / 2 ** 20, peakRssMb: peakRssMb() };
  },

  /** The real server on the built index: created, listening, then searching through its research provider. */
  async serve(args) {
    const entered = performance.now();
    const [{ createApp }, { loadConfig }, { createLogger }] = await Promise.all([
      import('../../src/app.ts'),
      import('../../src/config.ts'),
      import('../../src/logger.ts'),
    ]);
    const config = loadConfig({
      AGENT_API_DB: args.dbPath,
      AGENT_API_WEB_ARCHIVE: args.archive,
      AGENT_API_ARCHIVE_INDEX_DIR: args.indexDir,
      AGENT_API_OFFLINE: '1',
      SERP_PROVIDER: 'archive',
    });
    const imported = performance.now();
    const app = await createApp({ config, logger: createLogger('silent') });
    await app.listen('127.0.0.1', 0);
    const listening = performance.now();
    const provider = app.engine.providers.researchProvider('organic');
    const search: Search = async (q) =>
      (await provider.search(q.query, { platform: 'organic', ...(q.location ? { location: q.location } : {}) })).results
        .length;
    const started = performance.now();
    await search(args.queries[0]!);
    const readyMs = performance.now();
    const indexMs = readyMs - started;
    const timed = await timeSearches(search, args.queries);
    const rssMb = process.memoryUsage().rss / 2 ** 20;
    await app.close(0);
    return {
      readyMs,
      indexMs,
      phases: {
        boot: entered,
        imports: imported - entered,
        'app and listen': listening - imported,
        'first search': indexMs,
      },
      searchMsPerQuery: timed.perQuery,
      results: timed.results,
      rssMb,
      peakRssMb: peakRssMb(),
    };
  },

  /** Before: the whole archive and its BM25F index in memory, rebuilt at every start. */
  async memory(args) {
    const [{ archiveDocuments, buildBm25Index, loadMemoryArchive, locationTerms }, { extract }] = await Promise.all([
      import('./archive-memory.ts'),
      import('../../src/engine/analysis/extract/index.ts'),
    ]);
    const started = performance.now();
    const snapshot = await loadMemoryArchive(args.archive);
    const docs = archiveDocuments(snapshot, (html, url) => {
      const e = extract(html, { url });
      return { title: e.title, text: e.mainText };
    });
    const index = buildBm25Index(docs);
    const search: Search = async (q) =>
      index.query(q.query, { limit: 10, boostTerms: locationTerms(q.location) }).length;
    await search(args.queries[0]!);
    const readyMs = performance.now();
    const indexMs = readyMs - started;
    const timed = await timeSearches(search, args.queries);
    // The server holds the snapshot and the index for its lifetime: keep them reachable while measuring.
    const rssMb = snapshot.size > 0 && index.size >= 0 ? process.memoryUsage().rss / 2 ** 20 : 0;
    return {
      readyMs,
      indexMs,
      searchMsPerQuery: timed.perQuery,
      results: timed.results,
      rssMb,
      peakRssMb: peakRssMb(),
    };
  },
};

/** Runs a child mode in a fresh process and answers its report (the last stdout line). */
function runChild(mode: string, args: ChildArgs): Promise<ChildReport & { wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--child', mode], {
      cwd: ROOT,
      env: { ...process.env, AGENT_API_LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    child.stdin.end(JSON.stringify(args));
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = performance.now() - started;
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`bench child ${mode} exited with ${code}: ${err.slice(-2000)}`));
        return;
      }
      resolve({ ...(JSON.parse(last) as ChildReport), wallMs });
    });
  });
}

async function childMain(mode: string): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const run = childModes[mode];
  if (!run) throw new Error(`unknown child mode ${mode}`);
  const report = await run(JSON.parse(input) as ChildArgs);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  // Open handles (the server's timers) must not keep the measured process alive.
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------------------------
// The measurement.

const f0 = (n: number) => n.toFixed(0);
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/**
 * Generates the archive (`--pages N`, default 10,000), then measures the FTS5 index against the in-memory index.
 * Rows: figure, fts5, in_memory, unit, goal, note.
 */
export async function archiveScale(args: string[]): Promise<Array<Record<string, string | number>>> {
  const at = args.indexOf('--pages');
  const pages = at >= 0 ? Number(args[at + 1]) : 10_000;
  if (!Number.isInteger(pages) || pages < 1) throw new Error('--pages must be a positive integer');
  const dir = await mkdtemp(join(tmpdir(), 'agent-api-bench-archive-'));
  try {
    const archive = join(dir, 'bench.warc.gz');
    const generated = performance.now();
    await generateArchive(archive, pages);
    const generateMs = performance.now() - generated;
    const childArgs: ChildArgs = {
      archive,
      indexDir: join(dir, 'index'),
      dbPath: join(dir, 'agent-api.db'),
      queries: benchQueries(SEARCHES + 1),
    };
    const build = await runChild('build', childArgs);
    // The first start after a build verifies the archive's hash (written moments before, so not trusted from the
    // hash cache); later starts find it remembered. The second start is the one every restart sees.
    const firstServe = await runChild('serve', childArgs);
    const serve = await runChild('serve', childArgs);
    const memory = await runChild('memory', childArgs);
    const { archiveBytes, indexBytes } = await sizes(archive, childArgs.indexDir);
    return [
      {
        figure: `index build, ${pages} pages`,
        fts5: f1((build.indexMs ?? 0) / 1000),
        in_memory: f1((memory.indexMs ?? 0) / 1000),
        unit: 's',
        goal: '',
        note: `FTS5: built once per archive content; in memory: at every start. Archive generated in ${f1(generateMs / 1000)} s`,
      },
      {
        figure: 'start-up once indexed, to the first search answered',
        fts5: f0(serve.readyMs),
        in_memory: f0(memory.readyMs),
        unit: 'ms',
        goal: '< 2000',
        note: `from process start; FTS5 (the real server): ${Object.entries(serve.phases ?? {})
          .map(([k, v]) => `${k} ${f0(v)}`)
          .join(', ')} ms; first start after the build ${f0(firstServe.readyMs)} ms`,
      },
      {
        figure: `RSS after ${SEARCHES} searches`,
        fts5: f0(serve.rssMb),
        in_memory: f0(memory.rssMb),
        unit: 'MB',
        goal: '< 300',
        note: `peak ${f0(serve.peakRssMb)} / ${f0(memory.peakRssMb)} MB; in memory is a bare process, not a server; build peak ${f0(build.peakRssMb)} MB`,
      },
      {
        figure: 'archive search per query',
        fts5: f2(serve.searchMsPerQuery ?? 0),
        in_memory: f2(memory.searchMsPerQuery ?? 0),
        unit: 'ms',
        goal: '',
        note: `${SEARCHES} queries after the first, snippets included; ${serve.results} / ${memory.results} results`,
      },
      {
        figure: 'on disk',
        fts5: f0(indexBytes / 2 ** 20),
        in_memory: 0,
        unit: 'MB',
        goal: '',
        note: `the indexes, beside a ${f0(archiveBytes / 2 ** 20)} MB archive`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function sizes(archive: string, indexDir: string): Promise<{ archiveBytes: number; indexBytes: number }> {
  const { readdir, stat } = await import('node:fs/promises');
  let indexBytes = 0;
  for (const name of await readdir(indexDir)) indexBytes += (await stat(join(indexDir, name))).size;
  return { archiveBytes: (await stat(archive)).size, indexBytes };
}

const invoked = process.argv[1] ? pathToFileURL(process.argv[1]).href === import.meta.url : false;
if (invoked && process.argv[2] === '--child') await childMain(process.argv[3] ?? '');
