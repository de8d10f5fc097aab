import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { structured } from '../helpers/mcp.ts';
import { artifactsView } from '../../src/engine/content/views.ts';
import { EXTRACTIVE_NOTICE } from '../../src/engine/content/notice.ts';
import { readJobWithArtifacts } from '../../src/engine/content/service.ts';
import { getArtifacts as readArtifactsRow } from '../../src/store/repos/content.ts';
import {
  call,
  createdJob,
  expectSameError,
  mcpClient,
  PLUMBING,
  settle,
  SOURDOUGH,
  startContentApp,
  startedAutopilot,
  tenant,
  tool,
  type ErrorBody,
  type Tenant,
  type ToolResult,
} from './helpers/harness.ts';

/**
 * get_content_artifacts with `include` and `format` (src/engine/content/artifacts-view.ts), over REST and MCP: the
 * default answers (REST every part; MCP the draft and the brief in short form, at most 12 KB for a 1,500-word job), the parts asked for and
 * no others, each draft sentence once, the draft as a footnoted markdown or HTML document with hostile source titles
 * escaped.
 */

/** The MCP default answer's bound: a 1,500-word job's draft and short brief. */
const MAX_DEFAULT_BYTES = 12 * 1024;
const PARTS = ['outline', 'seo_metadata', 'entities', 'faqs', 'draft', 'citations', 'review', 'score'];
const ALWAYS = ['job_id', 'status', 'writer', 'notice', 'sources'];
const HOSTILE = '<script>alert("pwned")</script> Evil & Sons';

interface Citation {
  at?: [number, number];
  claim?: string;
  source_url: string;
  quote?: string;
  quote_at?: [number, number];
}
interface Answer extends ErrorBody {
  job_id: string;
  status: string;
  writer: string | null;
  notice: string | null;
  draft?: { content: string; sentences?: unknown } | null;
  citations?: Citation[] | null;
  sources: { id: number; url: string; title: string }[] | null;
  format?: string;
  content?: string;
  [part: string]: unknown;
}

let t: TestApp;
let a: Tenant;
let b: Tenant;
let job: string;
let pilot: string;
let hostile: string;

const path = (id: string, query = '') => `/copywriter/jobs/${id}/artifacts${query}`;
const rest = (id: string, query = '', key = a.key) => call<Answer>(t, 'GET', path(id, query), { key });
const mcp = (args: Record<string, unknown>, key = a.key) => tool(t, key, 'get_content_artifacts', args);
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** A markdown page of about `words` words on emergency plumbing, as an assistant would write it: no repeated sentence. */
function plumbingDraft(words: number): string {
  const lines = ['# Emergency plumber in Austin: what to do first', ''];
  const facts = [
    (n: number) =>
      `Shut the main valve within ${2 + (n % 5)} minutes of a burst pipe, before water reaches the floor below.`,
    (n: number) =>
      `A water heater older than ${8 + (n % 6)} years that leaks at the base usually needs replacing, not repair.`,
    (n: number) =>
      `Slab leaks show up as a warm patch on the floor or a water bill ${20 + (n % 30)}% higher than last month.`,
    (n: number) => `Sewer backups in older homes often start with roots in clay lines laid before ${1960 + (n % 20)}.`,
  ];
  let count = 0;
  for (let n = 0; count < words; n++) {
    if (n % 4 === 0) lines.push(`## Step ${n / 4 + 1}: keep the damage small`, '');
    const p = Array.from({ length: 4 }, (_, i) => facts[(n + i) % facts.length]!(n * 4 + i)).join(' ');
    count += p.split(/\s+/).length;
    lines.push(p, '');
  }
  return lines.join('\n');
}

/** The stored artifacts as the old answer showed them (every part, draft.sentences and full citations). */
async function fullView(id: string) {
  const { row, artifacts } = await readJobWithArtifacts(t.db, a.orgId, id);
  return artifactsView(row, artifacts);
}

/** Every draft sentence and claim, counted over the draft text and the citation rows of one answer. */
function sentenceCounts(answer: Answer, sentences: string[]): Map<string, number> {
  const hay = [answer.draft?.content ?? '', ...(answer.citations ?? []).flatMap((c) => [c.claim ?? '', c.quote ?? ''])];
  const counts = new Map<string, number>();
  for (const s of sentences) {
    const n = hay.reduce((sum, h) => sum + (h.split(s).length - 1), 0);
    counts.set(s, n);
  }
  return counts;
}

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t, 'agency', { serviceArea: 'Austin, TX', serviceLat: 30.2672, serviceLng: -97.7431 });
  b = await tenant(t, 'agency');
  job = (
    await createdJob(t, a.key, {
      topic: PLUMBING,
      client_id: a.clientId,
      page_contract: 'article',
      word_count_target: 1500,
    })
  ).job_id;
  expect(await settle(t, job)).toBe('completed');
  pilot = (await startedAutopilot(t, a.key, { topic: PLUMBING, client_id: a.clientId, page_contract: 'article' }))
    .job_id;
  expect(await settle(t, pilot)).toBe('completed');
  // A job whose first source has a hostile title: scraped text must come out escaped.
  hostile = (await createdJob(t, a.key, { topic: SOURDOUGH, client_id: a.clientId, page_contract: 'article' })).job_id;
  expect(await settle(t, hostile)).toBe('completed');
  const stored = await readArtifactsRow(t.db, hostile);
  const research = JSON.parse(stored!.research!) as { sources: { title: string }[] };
  for (const s of research.sources) s.title = HOSTILE;
  await t.db
    .updateTable('content_artifacts')
    .set({ research: JSON.stringify(research) })
    .where('job_id', '=', hostile)
    .execute();
}, 300_000);
afterAll(async () => {
  await t?.close();
});
beforeEach(() => t.clock.advance(61_000));

describe('include', () => {
  it('answers only the parts asked for, plus job_id, status, writer, notice and sources (REST and MCP)', async () => {
    for (const include of [['draft', 'review'], ['score'], ['outline', 'seo_metadata', 'entities', 'faqs']]) {
      const r = await rest(job, `?include=${include.join(',')}`);
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual([...ALWAYS, ...include].sort());
      const m = await mcp({ job_id: job, include });
      expect(m.isError).toBeFalsy();
      expect(structured(m)).toEqual(r.body);
    }
  });

  it('takes repeated and comma-separated REST parameters together, and ignores duplicates', async () => {
    const r = await rest(job, '?include=draft,citations&include=score&include=draft');
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([...ALWAYS, 'citations', 'draft', 'score'].sort());
  });

  it('omitted over MCP means the draft and the short brief; over REST every whole part, as the answer always was', async () => {
    const m = structured(await mcp({ job_id: job })) as Answer;
    expect(Object.keys(m).sort()).toEqual([...ALWAYS, 'brief', 'draft'].sort());
    expect(m.notice).toBe(EXTRACTIVE_NOTICE);
    expect(m.writer).toBe('extractive');
    expect(m).toEqual((await rest(job, '?include=draft,brief')).body);
    const all = await rest(job);
    expect(Object.keys(all.body)).toEqual(['job_id', 'status', 'writer', 'notice', ...PARTS, 'sources']);
    expect((await rest(job, '?include=all')).body).toEqual(all.body);
    expect((await rest(job, `?include=${PARTS.join(',')}`)).body).toEqual(all.body);
    expect(structured(await mcp({ job_id: job, include: ['all'] }))).toEqual(all.body);
    // The assistant's draft is the whole part.
    expect(m.draft).toEqual(all.body.draft);
  });

  it('brief: the SEO fields, the headings in order, the FAQ questions and the 10 most important terms', async () => {
    const full = await fullView(job);
    const r = await rest(job, '?include=brief');
    expect(Object.keys(r.body).sort()).toEqual([...ALWAYS, 'brief'].sort());
    const seo = full.seo_metadata as { title: string; metaDescription: string; slug: string };
    const outline = full.outline as { heading: string; level?: number }[];
    const faqs = full.faqs as { question: string }[];
    const terms = [...(full.entities as { term: string; importance: number }[])].sort(
      (x, y) => y.importance - x.importance,
    );
    expect(outline.length).toBeGreaterThan(2);
    expect(r.body.brief).toEqual({
      title: seo.title,
      meta_description: seo.metaDescription,
      slug: seo.slug,
      outline: outline.map((s) => `${s.level === 3 ? '###' : '##'} ${s.heading}`),
      faqs: faqs.map((f) => f.question),
      terms: terms.slice(0, 10).map((e) => e.term),
    });
    expect(structured(await mcp({ job_id: job, include: ['brief'] }))).toEqual(r.body);
  });

  it('an unknown name is 400 invalid_input naming include, the same body over REST and MCP', async () => {
    const r = await rest(job, '?include=draft,sentences');
    const m = await mcp({ job_id: job, include: ['draft', 'sentences'] });
    expectSameError(m, r, 400, 'invalid_input');
    const fields = r.body.error.details!.fields as { path: string; message: string }[];
    expect(fields).toEqual([{ path: 'include', message: expect.stringContaining('"sentences"') }]);
    expect(fields[0]!.message).toContain('outline, seo_metadata');
  });

  it('an unknown format is 400 invalid_input naming format', async () => {
    const r = await rest(job, '?format=pdf');
    const m = await mcp({ job_id: job, format: 'pdf' });
    expectSameError(m, r, 400, 'invalid_input');
    expect((r.body.error.details!.fields as { path: string }[]).map((f) => f.path)).toEqual(['format']);
  });
});

describe('the default answer', () => {
  it.each([
    ['content job', () => job],
    ['Autopilot run', () => pilot],
  ])('%s: each draft sentence once in draft + citations; citations point into the draft', async (_kind, id) => {
    const full = await fullView(id());
    const sentences = (full.draft!.sentences as { text: string }[]).map((s) => s.text);
    expect(sentences.length).toBeGreaterThan(10);
    const r = await rest(id(), '?include=all');
    expect(r.status, r.text).toBe(200);
    const answer = r.body;
    expect(answer.draft!.sentences).toBeUndefined();
    expect(answer.draft!.content).toBe(full.draft!.content);
    for (const [s, n] of sentenceCounts(answer, sentences)) expect(n, s).toBeLessThanOrEqual(1);

    // Per-sentence sources are still there: each row is `at` into the content or the claim, never both.
    const stored = full.citations as { claim: string; source_url: string; quote: string | null }[];
    expect(answer.citations).toHaveLength(stored.length);
    answer.citations!.forEach((c, i) => {
      expect(c.source_url).toBe(stored[i]!.source_url);
      expect(c.at === undefined).toBe(c.claim !== undefined);
      const claim = c.at ? answer.draft!.content.slice(c.at[0], c.at[1]) : c.claim;
      expect(claim).toBe(stored[i]!.claim);
      // The quote is kept only when the claim is not in it word for word.
      const quote = stored[i]!.quote;
      const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
      const differs = quote !== null && !squash(quote).includes(squash(claim!));
      const shown = c.quote_at ? answer.draft!.content.slice(c.quote_at[0], c.quote_at[1]) : c.quote;
      expect(shown).toBe(differs ? quote : undefined);
      expect(c.quote !== undefined && c.quote_at !== undefined).toBe(false);
    });
    expect(structured(await mcp({ job_id: id(), include: ['all'] }))).toEqual(answer);
  });

  it('citations without the draft keep their claims', async () => {
    const r = await rest(job, '?include=citations');
    const full = await fullView(job);
    expect(r.body.citations!.map((c) => c.claim)).toEqual((full.citations as { claim: string }[]).map((c) => c.claim));
    expect(r.body.citations!.every((c) => c.at === undefined)).toBe(true);
  });

  it('a 1,500-word job: the MCP default is at most 12 KB as the answer and as the whole MCP result', async () => {
    const r = await rest(job, '?include=draft,brief');
    const m = await mcp({ job_id: job });
    expect(structured(m)).toEqual(r.body);
    const all = bytes((await rest(job)).body);
    const stored = bytes(await fullView(job));
    console.log(
      `get_content_artifacts, 1,500-word job: default ${bytes(r.body)} bytes (MCP result ${bytes(m)}); include=all ${all} bytes; stored view ${stored} bytes`,
    );
    expect(bytes(r.body)).toBeLessThanOrEqual(MAX_DEFAULT_BYTES);
    expect(bytes(m)).toBeLessThanOrEqual(MAX_DEFAULT_BYTES);
    expect(all).toBeGreaterThan(bytes(r.body));
  });

  it('a draft of 1,500 words the assistant wrote (approve with draft_body): the MCP default is at most 12 KB', async () => {
    const stepped = (
      await createdJob(t, a.key, { topic: PLUMBING, client_id: a.clientId, page_contract: 'article', mode: 'stepped' })
    ).job_id;
    expect(await settle(t, stepped)).toBe('brief_ready');
    const written = plumbingDraft(1_500);
    const approved = await call(t, 'POST', `/copywriter/jobs/${stepped}/approve`, {
      key: a.key,
      body: { draft_body: written },
    });
    expect(approved.status, approved.text).toBe(200);
    expect(await settle(t, stepped)).toBe('completed');
    const r = await rest(stepped, '?include=draft,brief');
    expect(r.body.draft!.content).toBe(written);
    const m = await mcp({ job_id: stepped });
    const all = bytes((await rest(stepped)).body);
    console.log(
      `get_content_artifacts, 1,500-word supplied draft: default ${bytes(r.body)} bytes (MCP result ${bytes(m)}); include=all ${all} bytes`,
    );
    // The answer itself; the MCP result adds its summary line and resource links (about 1.5 KB) to it.
    expect(bytes(r.body)).toBeLessThanOrEqual(MAX_DEFAULT_BYTES);
    expect(structured(m)).toEqual(r.body);
  });
});

describe('format', () => {
  it('markdown: REST answers text/markdown with footnotes and source URLs; MCP the same document as text', async () => {
    const r = await rest(job, '?format=markdown');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(r.headers.get('x-ratelimit-limit')).not.toBeNull();
    const doc = r.text;
    expect(doc).toMatch(/^# /);
    expect(doc).toContain(`> ${EXTRACTIVE_NOTICE.replace(/[\\`*_[\]<>|~&!#]/g, '\\$&')}`);
    expect(doc).toMatch(/\[\^1\]/);
    expect(doc).toMatch(/^\[\^1\]: .+<https:\/\/[^>]+>/m);
    expect(doc).not.toMatch(/^## Sources/m);
    expect(doc).not.toMatch(/ \[\d+\]/); // the writer's markers became footnotes
    const sources = (await rest(job)).body.sources!;
    const cited = sources.filter((s) => doc.includes(`<${s.url}>`));
    expect(cited.length).toBeGreaterThan(1);
    const refs = new Set([...doc.matchAll(/\[\^(\d+)\](?!:)/g)].map((m) => m[1]));
    const defs = new Set([...doc.matchAll(/^\[\^(\d+)\]:/gm)].map((m) => m[1]));
    expect(refs).toEqual(defs);

    const m = await mcp({ job_id: job, format: 'markdown' });
    expect(m.isError).toBeFalsy();
    expect(structured(m)).toEqual({
      job_id: job,
      status: 'completed',
      writer: 'extractive',
      notice: EXTRACTIVE_NOTICE,
      format: 'markdown',
      content: doc,
    });
    expect((m as { content: { type: string; text: string }[] }).content).toEqual([{ type: 'text', text: doc }]);
  });

  it('html: REST answers text/html rendered from the markdown; MCP the same', async () => {
    const r = await rest(job, '?format=html&include=draft');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.text).toMatch(/^<!doctype html>/);
    expect(r.text).toContain('<h1>');
    expect(r.text).toContain('<section class="footnotes"><ol>');
    expect(r.text).toMatch(/<sup class="footnote-ref"><a href="#fn-1">1<\/a><\/sup>/);
    expect(r.text).toMatch(/<li id="fn-1">.*<a href="https:\/\/[^"]+" rel="nofollow noopener">/);
    const m = await mcp({ job_id: job, format: 'html' });
    expect(structured<{ content: string; format: string }>(m)).toMatchObject({ format: 'html', content: r.text });
  });

  it('escapes a hostile source title in markdown and html', async () => {
    const md = await rest(hostile, '?format=markdown');
    expect(md.text).not.toContain('<script>');
    expect(md.text).toContain('\\<script\\>alert("pwned")\\</script\\> Evil \\& Sons');
    const html = await rest(hostile, '?format=html');
    expect(html.status).toBe(200);
    expect(html.text).not.toMatch(/<script/i);
    expect(html.text).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; Evil &amp; Sons');
    const m = await mcp({ job_id: hostile, format: 'html' });
    expect(structured<{ content: string }>(m).content).toBe(html.text);
  });

  it('before the draft exists: 409 invalid_state for markdown, the JSON answer with draft null', async () => {
    const stepped = (
      await createdJob(t, a.key, { topic: PLUMBING, client_id: a.clientId, page_contract: 'article', mode: 'stepped' })
    ).job_id;
    expect(await settle(t, stepped)).toBe('brief_ready');
    const r = await rest(stepped, '?format=markdown');
    const m = await mcp({ job_id: stepped, format: 'markdown' });
    expectSameError(m, r, 409, 'invalid_state');
    const json = structured(await mcp({ job_id: stepped })) as Answer;
    expect(json.draft).toBeNull();
    expect((json.brief as { outline: string[] }).outline.length).toBeGreaterThan(0);
    const all = await rest(stepped);
    expect(all.body).toMatchObject({ draft: null, citations: null });
    expect(all.body.outline).not.toBeNull();
  });
});

describe('another organisation', () => {
  it("is 404 not_found for another organisation's job, whatever the format or include", async () => {
    for (const query of ['', '?format=markdown', '?format=html', '?include=draft']) {
      const r = await rest(job, query, b.key);
      expect(r.status, query).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body.error.code).toBe('not_found');
    }
    const m: ToolResult = await mcp({ job_id: job, format: 'markdown' }, b.key);
    expectSameError(m, await rest(job, '', b.key), 404, 'not_found');
  });

  it('MCP lists an open output schema admitting both the JSON answer and the document', async () => {
    const c = await mcpClient(t, a.key);
    try {
      const listed = (await c.client.listTools()).tools.find((x) => x.name === 'get_content_artifacts')!;
      expect(listed.description).toContain('quoted research draft');
      // An open object (compact-schema.ts): the client's validation accepts the JSON parts and the rendered document.
      expect(listed.outputSchema).toEqual({ type: 'object' });
      for (const args of [{ job_id: job }, { job_id: job, format: 'markdown' }]) {
        const result = await c.client.callTool({ name: 'get_content_artifacts', arguments: args });
        expect(result.isError).toBeFalsy();
      }
    } finally {
      await c.close();
    }
  });
});
