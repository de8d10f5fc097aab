import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { serializeExchange } from '../../src/providers/web/archive/writer.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { textProblem } from '../../src/tools/common/text.ts';
import type { TestApp } from '../helpers/app.ts';
import { hostileString, seeded, sprinkle } from '../helpers/hostile-text.ts';
import { tempDir } from '../helpers/temp.ts';
import {
  approve,
  call,
  createdJob,
  getArtifacts,
  run,
  settle,
  startContentApp,
  startedAutopilot,
  tenant,
  type Artifacts,
  type Tenant,
} from './helpers/harness.ts';

/**
 * The service accepts what it writes. An archive of pages about one topic, every one hostile:
 * UTF-8 declaring windows-1252 or ISO-8859-1 (a `™` read as `â\x84¢`), windows-1252 declaring UTF-8, and C0/C1
 * controls, DEL, U+FFFE, lone surrogates (as references), zero-width characters and bidirectional overrides in
 * titles, headings, descriptions, links, FAQs and prose. Content jobs (auto, stepped, imported page), an Autopilot
 * run and an optimization are written from them; then every string of every artifact they produced (drafts, briefs,
 * titles, sources, research, citations, reviews, scores, optimization results and recommendations) is fed back to
 * the operations that take text, and none is refused. The stepped brief is approved as written and the draft scored
 * over REST, end to end.
 */

const TOPIC = 'copper kettle descaling';
const HOSTS = ['kettle-care.example', 'descale-guide.example', 'copper-home.example', 'tea-gear.example'];
const SEED = 2207;

const PROSE = [
  'Descaling a copper kettle takes white vinegar, lemon juice and ten minutes of patience before the first cup.',
  'Copper kettle descaling removes the limescale that hard water leaves on the base and around the spout.',
  'Fill the copper kettle halfway with equal parts water and vinegar, bring it to a boil and let it stand overnight.',
  'Rinse the kettle three times with fresh water so that no taste of vinegar stays in the next pot of tea.',
  'A paste of baking soda and lemon polishes the outside of a copper kettle without scratching its lacquer.',
  'Descale the copper kettle every month in hard water areas and every three months where the water is soft.',
];

/** One hostile page: text sprinkled with what inputs refuse, and character references the parser decodes. */
function hostileHtml(random: () => number, host: string, declare: string): string {
  const s = (t: string) => sprinkle(random, t, 0.35);
  const refs = ['&#1;', '&#x84;', '&#x9d;', '&#0;', '&#xD800;', '&#xDFFF;', '&#x202E;', '&#xFFFE;', '&#x200B;'];
  const ref = () => refs[Math.floor(random() * refs.length)]!;
  const faq = JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'FAQPage',
    mainEntity: PROSE.slice(0, 3).map((p, i) => ({
      '@type': 'Question',
      name: s(`How long does copper kettle descaling step ${i + 1} take?`),
      acceptedAnswer: { '@type': 'Answer', text: s(p) },
    })),
  });
  return `<!doctype html><html lang="en"><head>${declare}
<title>Acme™ ${s('Copper Kettle Descaling')} — “${host}” ${ref()}</title>
<meta name="description" content="${s('Copper kettle descaling, step by step')} ${ref()}">
<meta property="og:site_name" content="${s('Kettle Care')}™">
<script type="application/ld+json">${faq}</script>
</head><body><main><article>
<h1>${s('Copper kettle descaling')}™ ${ref()}</h1>
${PROSE.map(
  (p, i) =>
    `<h2>${s(`Step ${i + 1} of copper kettle descaling`)} ${ref()}</h2><p>${s(p)} ${ref()} ${hostileString(random, 8)}</p><p>${s(PROSE[(i + 1) % PROSE.length]!)}</p>`,
).join('\n')}
<ul><li>${s('white vinegar')} ${ref()}</li><li>${s('lemon juice')}</li><li>${s('baking soda')}</li></ul>
<table><tr><th>${s('Method')}</th><th>${s('Time')}</th></tr><tr><td>${s('Vinegar soak')} ${ref()}</td><td>10 min</td></tr></table>
<p><a href="https://${host}/care">${s('copper kettle care')} ${ref()}</a> <img src="k.png" alt="${s('a copper kettle')}"></p>
</article></main></body></html>`;
}

/** windows-1252 bytes of text that holds only Latin-1 and the few windows-1252 characters used above. */
function cp1252(text: string): Uint8Array {
  const high: Record<string, number> = { '™': 0x99, '“': 0x93, '”': 0x94, '—': 0x97 };
  return Uint8Array.from([...text].map((c) => high[c] ?? (c.codePointAt(0)! <= 0xff ? c.codePointAt(0)! : 0x3f)));
}

/** The archive: per host a page decoded some hostile way, each under its own (often wrong) charset. */
async function writeArchive(file: string): Promise<string[]> {
  const random = seeded(SEED);
  const urls: string[] = [];
  const parts: Uint8Array[] = [];
  const ways: { declare: string; header: string; bytes: (html: string) => Uint8Array }[] = [
    // UTF-8 that says windows-1252: read as declared, Acme™ became Acmeâ\x84¢.
    { declare: '<meta charset="windows-1252">', header: 'text/html', bytes: (h) => Buffer.from(h, 'utf8') },
    // UTF-8 under a server's ISO-8859-1 default.
    { declare: '', header: 'text/html; charset=ISO-8859-1', bytes: (h) => Buffer.from(h, 'utf8') },
    // windows-1252 that says UTF-8.
    { declare: '<meta charset="utf-8">', header: 'text/html; charset=utf-8', bytes: cp1252 },
    // windows-1252 with no declaration at all.
    { declare: '', header: 'text/html', bytes: cp1252 },
  ];
  for (const [i, host] of HOSTS.entries()) {
    const way = ways[i % ways.length]!;
    for (const path of ['/copper-kettle-descaling', '/guides/descaling-a-copper-kettle']) {
      const url = `https://${host}${path}`;
      urls.push(url);
      parts.push(
        await serializeExchange(
          {
            url,
            date: '2025-03-01T10:00:00Z',
            status: 200,
            statusText: 'OK',
            headers: [['Content-Type', way.header]],
            payload: way.bytes(hostileHtml(random, host, way.declare)),
          },
          { gzip: true },
        ),
      );
    }
  }
  writeFileSync(file, Buffer.concat(parts));
  return urls;
}

let t: TestApp;
let a: Tenant;
let urls: string[];
const tmp = tempDir('hostile-pages-');

beforeAll(async () => {
  const warc = join(tmp.dir, 'hostile.warc.gz');
  urls = await writeArchive(warc);
  t = await startContentApp({ env: { AGENT_API_WEB_ARCHIVE: warc } });
  a = await tenant(t);
}, 120_000);
afterAll(async () => {
  await t?.close();
  tmp.cleanup();
});

/** Every string in a JSON value, with the path it sits at. */
function strings(value: unknown, path = ''): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => strings(v, path ? `${path}.${k}` : k));
  return [];
}

/** The first `max` code points (a cut inside a surrogate pair would make a lone surrogate of our own). */
const upTo = (text: string, max: number) => [...text].slice(0, max).join('');

/** The input schema of an operation, by name. */
function inputOf(name: string): z.ZodType {
  const op = OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`no operation ${name}`);
  return op.input as z.ZodType;
}

/** The field errors of `input` against an operation's schema (what REST and MCP answer as validation errors). */
function refused(name: string, input: Record<string, unknown>): string[] {
  const r = inputOf(name).safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('pages decoded wrong and full of refused characters, written into every artifact', () => {
  const produced: { source: string; value: unknown }[] = [];
  let draft = '';
  let optimizationId = '';

  it('content jobs (auto, stepped approved as written, an imported page) and an Autopilot run complete', async () => {
    const auto = await createdJob(t, a.key, { topic: TOPIC, client_id: a.clientId, page_contract: 'article' });
    const stepped = await createdJob(t, a.key, {
      topic: TOPIC,
      client_id: a.clientId,
      page_contract: 'article',
      mode: 'stepped',
    });
    const imported = await createdJob(t, a.key, {
      topic: TOPIC,
      client_id: a.clientId,
      page_contract: 'article',
      project_mode: 'optimize',
      source_url: urls[0],
    });
    const autopilot = await startedAutopilot(t, a.key, {
      topic: TOPIC,
      client_id: a.clientId,
      page_contract: 'article',
    });
    expect(await settle(t, auto.job_id)).toBe('completed');
    expect(await settle(t, stepped.job_id)).toBe('brief_ready');

    // The brief goes back as written: its outline, FAQs and SEO fields are inputs of approve_content_brief.
    const brief = (await getArtifacts(t, a.key, stepped.job_id)).body as Artifacts;
    const seo = brief.seo_metadata as { title?: string; metaDescription?: string; slug?: string };
    const edits = {
      outline: brief.outline!.map((s) => ({ heading: s.heading, level: s.level === 3 ? 3 : 2, points: s.points })),
      faqs: brief.faqs!.map((f) => ({ question: f.question, answer: f.answer })),
      // Fields the brief left empty are left out, as a client would.
      seo_metadata: Object.fromEntries(
        Object.entries({ title: seo.title, meta_description: seo.metaDescription, slug: seo.slug }).filter(
          ([, v]) => v,
        ),
      ),
    };
    const approved = await approve(t, a.key, stepped.job_id, { body: edits });
    expect(approved.status, approved.text).toBe(200);

    expect(await settle(t, stepped.job_id)).toBe('completed');
    expect(await settle(t, imported.job_id)).toBe('completed');
    expect(await settle(t, autopilot.job_id)).toBe('completed');
    for (const id of [auto.job_id, stepped.job_id, imported.job_id, autopilot.job_id]) {
      const row = await t.db
        .selectFrom('content_artifacts')
        .selectAll()
        .where('job_id', '=', id)
        .executeTakeFirstOrThrow();
      for (const [column, json] of Object.entries(row))
        if (typeof json === 'string' && (json.startsWith('{') || json.startsWith('[')))
          produced.push({ source: `${id} ${column}`, value: JSON.parse(json) as unknown });
      produced.push({ source: `${id} get_content_artifacts`, value: (await getArtifacts(t, a.key, id)).body });
    }
    const stored = await t.db
      .selectFrom('content_artifacts')
      .select('draft')
      .where('job_id', '=', auto.job_id)
      .executeTakeFirstOrThrow();
    draft = (JSON.parse(stored.draft!) as { content: string }).content;
    expect(draft.length).toBeGreaterThan(200);
    // The mis-decoded sign is read right where it is kept: the sources' titles carry ™, never â\x84¢.
    const sources = (await getArtifacts(t, a.key, auto.job_id)).body.sources!;
    expect(sources.length).toBeGreaterThanOrEqual(2);
    for (const s of sources) expect(s.title, s.url).not.toMatch(/â|\u0084/);
    expect(sources.some((s) => s.title.includes('Acme™'))).toBe(true);
  }, 300_000);

  it('an optimization of a hostile page completes; its result and recommendations are artifacts too', async () => {
    const r = await call<{ optimization_id: string }>(t, 'POST', '/optimize', {
      key: a.key,
      body: { url: urls[2], keyword: TOPIC, competitor_urls: urls.filter((u) => u !== urls[2]).slice(0, 4) },
      headers: { 'idempotency-key': `hostile-${SEED}` },
    });
    expect(r.status, r.text).toBe(202);
    optimizationId = r.body.optimization_id;
    for (let i = 0; i < 30; i++) {
      await run(t);
      const row = await t.db
        .selectFrom('optimizations')
        .select('status')
        .where('id', '=', optimizationId)
        .executeTakeFirstOrThrow();
      if (row.status === 'complete' || row.status === 'failed') break;
      t.clock.advance(11 * 60_000);
    }
    const full = await call(t, 'GET', `/optimizations/${optimizationId}`, { key: a.key, query: { view: 'full' } });
    expect(full.status, full.text).toBe(200);
    expect(full.body).toMatchObject({ status: 'complete' });
    produced.push({ source: 'optimization', value: full.body });
  }, 300_000);

  it('score_content takes the job’s draft, its title and description as written (REST)', async () => {
    const r = await call(t, 'POST', `/optimizations/${optimizationId}/score`, {
      key: a.key,
      body: { content: draft, format: 'markdown' },
    });
    expect(r.status, r.text).toBe(200);
    produced.push({ source: 'score_content', value: r.body });
  });

  it('every string of every artifact is accepted by every operation that takes such text', () => {
    const all = produced.flatMap((p) => strings(p.value, p.source));
    expect(all.length).toBeGreaterThan(500);
    const problems: string[] = [];
    for (const { path, text } of all) {
      // An empty field is not something a client sends back.
      if (text.trim() === '') continue;
      // Text of any length, as a client would quote it: one line of it where one line is taken, all of it in prose.
      const line = upTo(text.split('\n').find((l) => l.trim() !== '') ?? '', 200).trim();
      const prose = upTo(text, 2_000);
      const tries: [string, Record<string, unknown>][] = [
        [
          'create_content_job',
          { topic: line || TOPIC, client_id: a.clientId, page_contract: 'article', custom_instructions: prose },
        ],
        ['create_content_autopilot', { topic: TOPIC, client_id: a.clientId, page_contract: 'article', context: prose }],
        ['start_optimization', { url: urls[0], keyword: line || TOPIC }],
        [
          'score_content',
          {
            optimization_id: 'opt_x',
            content: prose.trim() || 'x',
            format: 'markdown',
            title: line || 'x',
            meta_description: upTo(prose, 1_000),
          },
        ],
        [
          'approve_content_brief',
          {
            job_id: 'j',
            outline: [{ heading: line || 'x', points: [line || 'x'] }],
            faqs: [{ question: line || 'x', answer: prose.trim() || 'x' }],
            seo_metadata: { title: upTo(line, 120).trim() || 'x', meta_description: upTo(line, 320).trim() || 'x' },
          },
        ],
        ['create_client', { name: upTo(line, 100).trim() || 'x', brand_voice: prose.trim() || 'x' }],
      ];
      for (const [op, input] of tries) {
        for (const p of refused(op, input)) problems.push(`${op} ← ${path}: ${p} ${JSON.stringify(upTo(text, 80))}`);
      }
      // And the rule itself, on the whole text: each line passes as one-line text, all of it as prose.
      for (const l of text.split('\n')) {
        const p = textProblem(l, 'short');
        if (p) problems.push(`${path}: ${p} ${JSON.stringify(upTo(l, 80))}`);
      }
    }
    expect(problems.slice(0, 20)).toEqual([]);
  });
});
