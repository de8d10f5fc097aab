import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { FetchOptions } from '../../src/providers/types.ts';
import { hideExcludedTitles } from '../../src/engine/content/pipelines.ts';
import {
  createdJob,
  getArtifacts,
  getJob,
  ledgerOf,
  mentions,
  NO_MATCH,
  PLUMBING,
  RAPIDFLOW_EMERGENCY,
  settle,
  startContentApp,
  tenant,
  type Artifacts,
  type Tenant,
} from './helpers/harness.ts';

/**
 * The content rules of issue 5 on the sample archive with the extractive writer: the draft lands within 15% of its
 * word target, the client's excluded topics appear nowhere, a supplied draft is kept as it is, optimize mode imports
 * the source page (read only) and keeps its text, intent and page contract shape the outline, and research that
 * finds nothing to write about fails the job and releases its usage.
 */

let t: TestApp;
let a: Tenant;
const fetched: { url: string; options: FetchOptions | undefined }[] = [];

beforeAll(async () => {
  t = await startContentApp();
  a = await tenant(t);
  // Every page fetch the engine makes goes through this spy: the fetcher interface can only read (GET).
  const real = t.engine.providers.fetcher;
  t.engine.providers.fetcher = {
    fetch(url, options) {
      fetched.push({ url, options });
      return real.fetch(url, options);
    },
  };
});
afterAll(async () => {
  await t?.close();
});

/** Creates a job for client `clientId` of tenant `a`, runs it to rest and answers its artifacts. */
async function produce(body: Record<string, unknown>, clientId = a.clientId): Promise<{ id: string; art: Artifacts }> {
  const job = await createdJob(t, a.key, { client_id: clientId, ...body });
  expect(await settle(t, job.job_id)).toBe('completed');
  return { id: job.job_id, art: (await getArtifacts(t, a.key, job.job_id)).body };
}

const headings = (art: Artifacts) => art.outline!.map((s) => s.heading);

describe('word count, intent and page contract', () => {
  const jobs: Record<string, Artifacts> = {};
  beforeAll(async () => {
    jobs.service600 = (
      await produce({ topic: PLUMBING, page_contract: 'commercial_service', word_count_target: 600 })
    ).art;
    jobs.article600 = (await produce({ topic: PLUMBING, page_contract: 'article', word_count_target: 600 })).art;
    jobs.convert600 = (
      await produce({ topic: PLUMBING, page_contract: 'article', intent: 'convert', word_count_target: 600 })
    ).art;
    jobs.article1000 = (await produce({ topic: PLUMBING, page_contract: 'article', word_count_target: 1000 })).art;
  });

  it.each([
    ['service600', 600],
    ['article600', 600],
    ['article1000', 1_000],
  ])(
    '%s: the extractive draft never passes word_count_target %i by more than 15 percent; short of it, it says so',
    (name, target) => {
      const art = jobs[name]!;
      expect(art.writer).toBe('extractive');
      const d = art.draft!;
      expect(d).toMatchObject({ format: 'markdown', word_count_target: target });
      expect(d.word_count).toBeGreaterThan(0);
      expect(d.word_count).toBeLessThanOrEqual(target * 1.15);
      expect(d.within_tolerance).toBe(Math.abs(d.word_count - target) <= target * 0.15);
      // No page may give more than 30% of the words, so thin research makes a shorter draft, and the answer says so.
    },
  );

  it('page_contract: a commercial service page and an article on the same topic have different outlines (the service page ends with a call to action)', () => {
    const service = headings(jobs.service600!);
    const article = headings(jobs.article600!);
    expect(service).not.toEqual(article);
    expect(service.some((h) => /^Contact Test client$/.test(h))).toBe(true);
    expect(article.some((h) => /^Contact /.test(h))).toBe(false);
  });

  it('intent: convert and educate outlines differ for the same contract and target (convert asks for action)', () => {
    const convert = headings(jobs.convert600!);
    const educate = headings(jobs.article600!);
    expect(convert).not.toEqual(educate);
    expect(convert.some((h) => /^Contact /.test(h))).toBe(true);
  });

  it('the same request writes the same page (the extractive writer is deterministic)', async () => {
    const again = await produce({ topic: PLUMBING, page_contract: 'commercial_service', word_count_target: 600 });
    expect(again.art.draft!.content).toBe(jobs.service600!.draft!.content);
    expect(again.art.outline).toEqual(jobs.service600!.outline);
  });

  it("the client's excluded topics appear nowhere: outline, SEO metadata, FAQs, entities or draft (they do without the exclusion)", async () => {
    const excluded = ['water heater', 'burst pipe'];
    for (const topic of excluded)
      expect(mentions(jobs.article1000, topic), `control mentions ${topic}`).toBeGreaterThan(0);
    const careful = await t.client(a.orgId, { name: 'Careful client', excludedTopics: excluded });
    const { art } = await produce({ topic: PLUMBING, page_contract: 'article', word_count_target: 1_000 }, careful.id);
    for (const topic of excluded) {
      for (const part of ['outline', 'seo_metadata', 'faqs', 'entities'] as const)
        expect(mentions(art[part], topic), `${part}: ${topic}`).toBe(0);
      expect(mentions(art.draft!.content, topic), `draft: ${topic}`).toBe(0);
    }
    expect(art.draft!.word_count).toBeGreaterThan(0);
  });
});

describe('the Sources list of a draft and excluded topics', () => {
  it("a cited page whose title names an excluded topic is listed by its host (both writers' list formats); its link and number stay", () => {
    const extractive =
      '# Page\n\nText [1].\n\n## Sources\n\n1. [Water Heater Repair | RapidFlow](https://www.rapidflowplumbing.com/water-heater-repair/)\n2. [Emergency plumber](<https://ex.example/a b>)\n';
    expect(hideExcludedTitles(extractive, ['water heater'])).toBe(
      '# Page\n\nText [1].\n\n## Sources\n\n1. [www.rapidflowplumbing.com](https://www.rapidflowplumbing.com/water-heater-repair/)\n2. [Emergency plumber](<https://ex.example/a b>)\n',
    );
    const model =
      '# Page\n\nText [2].\n\n## Sources\n\n- [1] [Plumbers](https://a.example/)\n- [2] [Brand X kits, reviewed](https://b.example/kits)';
    expect(hideExcludedTitles(model, ['Brand X'])).toBe(
      '# Page\n\nText [2].\n\n## Sources\n\n- [1] [Plumbers](https://a.example/)\n- [2] [b.example](https://b.example/kits)',
    );
    // The body is the writers' business; only the Sources list is touched, and nothing without exclusions.
    expect(hideExcludedTitles('# Brand X\n\n- [Brand X](https://b.example/)\n', ['Brand X'])).toBe(
      '# Brand X\n\n- [Brand X](https://b.example/)\n',
    );
    expect(hideExcludedTitles(model, [])).toBe(model);
  });
});

describe('draft_body and project_mode optimize', () => {
  it('draft_body skips writing: the supplied draft is kept as it is (page_contract may be omitted)', async () => {
    const body =
      '# Our emergency plumbing page\n\nWe answer the phone at night. Our plumbers carry parts for common repairs.\n';
    const { id, art } = await produce({ topic: PLUMBING, draft_body: body });
    expect(art.draft!.content).toBe(body);
    // The answer holds each sentence once, in the content: no per-sentence list.
    expect(art.draft!.sentences).toBeUndefined();
    expect(art.status).toBe('completed');
    const d = await getJob(t, a.key, id);
    expect(d.body).toMatchObject({
      has_draft_body: true,
      page_contract: null,
      content_type: null,
      status: 'completed',
    });
  });

  it('optimize: the source page is imported through the fetcher (reads only) and its text is kept in the draft; competitors are researched; the live page is never written', async () => {
    fetched.length = 0;
    const { id, art } = await produce({
      topic: PLUMBING,
      page_contract: 'commercial_service',
      project_mode: 'optimize',
      source_url: RAPIDFLOW_EMERGENCY,
      word_count_target: 600,
    });
    // The page was read once, by the only operation the fetcher has (GET); nothing else was sent to it.
    expect(fetched.filter((f) => f.url === RAPIDFLOW_EMERGENCY)).toHaveLength(1);
    for (const f of fetched) expect(Object.keys(f.options ?? {}).filter((k) => k !== 'signal')).toEqual([]);
    // The imported page is not one of the researched competitors: it is listed after them, marked imported, and the
    // draft keeps its text and cites it.
    const researched = art.sources!.filter((s) => s.platform !== 'imported');
    expect(researched.map((s) => s.url)).not.toContain(RAPIDFLOW_EMERGENCY);
    expect(researched.length).toBeGreaterThan(0);
    expect(art.sources!.at(-1)).toMatchObject({
      id: researched.length + 1,
      url: RAPIDFLOW_EMERGENCY,
      platform: 'imported',
    });
    expect(art.draft!.content).toContain(
      'A real dispatcher answers, not a call center, and in 2023 our trucks arrived in an average of 47 minutes.',
    );
    expect(art.draft!.content).toContain(
      'RapidFlow Plumbing sends a licensed emergency plumber to homes and businesses across Austin',
    );
    expect(art.citations!.some((c) => c.source_url === RAPIDFLOW_EMERGENCY)).toBe(true);
    const research = await t.db
      .selectFrom('content_artifacts')
      .select('research')
      .where('job_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(research.research!).imported).toMatchObject({
      url: RAPIDFLOW_EMERGENCY,
      wordCount: expect.any(Number),
    });
    expect((await getJob(t, a.key, id)).body).toMatchObject({
      project_mode: 'optimize',
      source_url: RAPIDFLOW_EMERGENCY,
    });
  });
});

describe('research with nothing to write about', () => {
  it.each([
    ['no archived page matches', NO_MATCH, /^Research found no page about "zzqx/],
    [
      'an archived page matches a word but says nothing on the topic',
      // "espresso" is in the archive's espresso pages, which are not about the rest of the topic.
      'zzqx nonexistent espresso',
      /^Research found no page about "zzqx nonexistent espresso" on organic \(\d+ other pages? (?:was|were) about something else\)/,
    ],
  ])('%s: the job ends failed with its error and the usage released', async (_label, topic, error) => {
    const job = await createdJob(t, a.key, { topic, client_id: a.clientId, page_contract: 'article' });
    expect(await settle(t, job.job_id)).toBe('failed');
    const d = await getJob(t, a.key, job.job_id);
    expect(d.body).toMatchObject({ status: 'failed', billing: { charged: false, released: true } });
    expect(d.body.error).toMatch(error);
    expect(d.body.error_code).toBe('insufficient_research');
    expect(await ledgerOf(t, job.job_id)).toEqual([{ state: 'released', units: 10 }]);
    expect((await getArtifacts(t, a.key, job.job_id)).body.draft).toBeNull();
  });
});
