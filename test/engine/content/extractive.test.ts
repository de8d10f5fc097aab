import { describe, expect, it } from 'vitest';
import { createAnalysis } from '../../../src/engine/analysis/analysis.ts';
import { availableWords, countWords, createExtractiveWriter } from '../../../src/engine/content/extractive/index.ts';
import type {
  Brief,
  ClientContext,
  ContentRequest,
  Draft,
  Intent,
  PageContract,
  Research,
} from '../../../src/engine/content/types.ts';
import { MAX_SOURCE_SHARE } from '../../../src/engine/content/extractive/compose.ts';
import { buildResearch, CLIENT, GERMAN_PAGES, isQuoted, PAGES, request } from './extractive-fixtures.ts';
import { pageShares } from './planted-fixtures.ts';

const analysis = createAnalysis();
const writer = createExtractiveWriter({ analyzer: analysis.analyzer });
const RESEARCH = { plain: buildResearch(), structured: buildResearch({ structured: true }) };

async function run(
  req: ContentRequest,
  research: Research = RESEARCH.structured,
  client: ClientContext = CLIENT,
): Promise<{ brief: Brief; draft: Draft }> {
  const input = { request: req, client, research, idempotencyKey: 'job-1:write' };
  const brief = await writer.brief(input);
  const draft = await writer.draft({ ...input, brief });
  return { brief, draft };
}

/** The draft's Sources list: URL -> number. */
function sourcesList(markdown: string): Map<string, number> {
  const part = markdown.slice(markdown.indexOf('\n## Sources'));
  return new Map([...part.matchAll(/^(\d+)\. \[[^\]]*\]\(<?([^)>]+)>?\)$/gm)].map((m) => [m[2] ?? '', Number(m[1])]));
}

const body = (markdown: string): string => markdown.slice(0, markdown.indexOf('\n## Sources'));
const EXCLUDED = /solar water heaters?\b|\brebates?\b/i;

describe('extractive writer: citations', () => {
  for (const [mode, research] of Object.entries(RESEARCH)) {
    for (const contract of ['article', 'commercial_service'] as const) {
      it(`quotes every sentence verbatim and cites it (${contract}, ${mode} extraction)`, async () => {
        const { draft } = await run(request({ pageContract: contract }), research);
        const listed = sourcesList(draft.markdown);
        research.sources.forEach((s, i) => expect(listed.get(s.url)).toBe(i + 1));
        expect(draft.sentences.length).toBeGreaterThan(20);
        const own = (url: string | null): boolean => url !== null && url.startsWith('knowledge-base:');
        for (const s of draft.sentences) {
          if (s.sourceUrl === null) {
            // Only the templated call-to-action lines are uncited, and they name the client.
            expect(s.text).toMatch(/HeatRight|heatright\.example/);
            continue;
          }
          expect(isQuoted(research, CLIENT, s.text, s.sourceUrl), s.text).toBe(true);
          const n = listed.get(s.sourceUrl);
          expect(n, s.sourceUrl).toBeDefined();
          // The client's own words (its knowledge base) carry no marker; researched sentences cite their page.
          if (own(s.sourceUrl)) expect(draft.markdown).not.toContain(`${s.text} [`);
          else expect(draft.markdown).toContain(`${s.text} [${n}]`);
        }
        for (const m of body(draft.markdown).matchAll(/\[(\d+)\]/g))
          expect(Number(m[1])).toBeLessThanOrEqual(listed.size);
        // Every prose line and list item of the body ends with a citation: the CTA lines, the client's own words and
        // research-gap notes aside.
        const ownText = draft.sentences.filter((s) => own(s.sourceUrl)).map((s) => s.text);
        for (const line of body(draft.markdown).split('\n')) {
          if (
            !line.trim() ||
            line.startsWith('#') ||
            line.startsWith('[research gap:') ||
            ownText.some((t) => line.replace(/^- /, '').startsWith(t)) ||
            (/HeatRight|heatright\.example/.test(line) && !/\[\d+\]$/.test(line))
          )
            continue;
          expect(line, line).toMatch(/\[\d+\]$/);
        }
        expect(draft.markdown).toContain('_Extractive draft:');
      });
    }
  }

  it('cites the knowledge base and never quotes forum posts or a competitor selling itself', async () => {
    const { draft } = await run(request({ pageContract: 'commercial_service', intent: 'convert' }));
    const kb = draft.sentences.filter((s) => s.sourceUrl?.startsWith('knowledge-base:'));
    expect(kb.length).toBeGreaterThan(0);
    expect(draft.markdown).toMatch(/\[HeatRight knowledge base\]\(knowledge-base:[0-9a-f]{12}\)/);
    expect(draft.sentences.some((s) => s.sourceUrl?.includes('forum.'))).toBe(false);
    expect(body(draft.markdown)).not.toMatch(/FlowPros|555-0117|\bour plumbers\b|\bwe\b/i);
  });
});

describe('extractive writer: word count', () => {
  for (const target of [600, 1200]) {
    for (const contract of ['article', 'commercial_service'] as const) {
      it(`lands within 15% of ${target} words, or short because every page is at its share (${contract})`, async () => {
        const { draft } = await run(request({ pageContract: contract, wordCountTarget: target }));
        expect(draft.wordCount).toBe(countWords(draft.markdown));
        const off = Math.abs(draft.wordCount - target) / target;
        if (off > 0.15) {
          // Five usable pages of 150-350 words cannot fill every target at 30% each: the draft is shorter (not by
          // much: 836 of 1,200 words for the article once terms became noun phrases, 892 before), no page is over
          // its share, and the richest page is at it.
          expect(draft.wordCount).toBeLessThan(target);
          expect(draft.wordCount).toBeGreaterThan(target * 0.65);
          const shares = [...pageShares(draft.markdown).values()].sort((a, b) => b - a);
          expect(shares[0]).toBeLessThanOrEqual(MAX_SOURCE_SHARE + 1e-9);
          expect(shares[0]).toBeGreaterThanOrEqual(MAX_SOURCE_SHARE - 0.04);
        }
        // The article at 600 words has the material: it lands.
        if (target === 600 && contract === 'article') expect(off).toBeLessThanOrEqual(0.15);
      });
    }
  }

  it('reports thin sources honestly: a short draft and the available words', async () => {
    const thin = buildResearch({ pages: PAGES.slice(2, 3) });
    const { draft } = await run(request({ wordCountTarget: 2000 }), thin);
    expect(availableWords(thin)).toBeLessThan(400);
    expect(draft.wordCount).toBeLessThan(600);
    expect(availableWords(RESEARCH.structured)).toBeGreaterThan(1200);
  });
});

describe('extractive writer: excluded topics', () => {
  for (const intent of ['educate', 'discover', 'compete', 'convert'] as Intent[]) {
    for (const contract of ['article', 'commercial_service'] as PageContract[]) {
      it(`never mention an excluded topic (${intent}, ${contract})`, async () => {
        const { brief, draft } = await run(request({ intent, pageContract: contract }));
        expect(JSON.stringify(brief.outline)).not.toMatch(EXCLUDED);
        expect(JSON.stringify(brief.faqs)).not.toMatch(EXCLUDED);
        expect(JSON.stringify(brief.seoMetadata)).not.toMatch(EXCLUDED);
        expect(JSON.stringify(brief.entities)).not.toMatch(/solar water|\brebates?\b/i);
        expect(draft.markdown).not.toMatch(EXCLUDED);
      });
    }
  }

  it('matches inflected forms (the bait is in the sources)', async () => {
    const { brief, draft } = await run(request(), RESEARCH.structured, { ...CLIENT, excludedTopics: [] });
    const text = RESEARCH.structured.sources.map((s) => s.extraction.mainText).join('\n');
    expect(text).toMatch(/Solar water heaters/);
    expect(JSON.stringify({ brief, draft })).toMatch(EXCLUDED);
  });
});

describe('extractive writer: outline', () => {
  it('gives a service page its contract sections and an article its conclusion', async () => {
    const article = (await run(request({ pageContract: 'article' }))).brief.outline.map((o) => o.heading);
    const service = (await run(request({ pageContract: 'commercial_service' }))).brief.outline.map((o) => o.heading);
    expect(article[0]).toBe('Introduction');
    expect(article).toContain('Key takeaways');
    expect(article.join('|')).not.toMatch(/HeatRight/);
    expect(service).toContain('Services from HeatRight');
    expect(service).toContain('Why choose HeatRight');
    expect(service[service.length - 1]).toBe('Contact HeatRight');
    expect(service).not.toContain('Key takeaways');
    expect(service.indexOf('Frequently asked questions')).toBe(service.length - 2);
  });

  it('shapes sections by intent', async () => {
    // A short target leaves room for the intent's sections only.
    const outline = async (intent: Intent): Promise<string[]> =>
      (await run(request({ intent, wordCountTarget: 600 }))).brief.outline.map((o) => o.heading);
    const educate = await outline('educate');
    const compete = await outline('compete');
    const discover = await outline('discover');
    expect(educate).toContain('What is a tankless water heater?');
    expect(educate).toContain('How tankless water heaters work');
    expect(compete.join('|')).toMatch(/\bvs\b/);
    expect(compete.join('|')).toMatch(/cost/i);
    expect(discover).toContain('How to choose a tankless water heater');
    expect(educate).not.toContain('How to choose a tankless water heater');
    expect(discover).not.toContain('What is a tankless water heater?');
    const convert = await outline('convert');
    expect(convert[convert.length - 1]).toBe('Contact HeatRight');
    expect(convert.join('|')).toMatch(/Pros and cons|cost/);
    expect(new Set([educate.join('|'), compete.join('|'), discover.join('|'), convert.join('|')]).size).toBe(4);
  });

  it('lists 4 to 9 sections with points and sources, no fewer for longer targets', async () => {
    // Each page gives at most 30% of a draft, so even a short target takes sections from many pages.
    const short = (await run(request({ wordCountTarget: 300 }))).brief.outline;
    const { brief, draft } = await run(request({ wordCountTarget: 1500 }));
    const long = brief.outline;
    const sections = (o: typeof short): number =>
      o.filter((s) => s.heading !== 'Introduction' && s.heading !== 'Frequently asked questions').length;
    expect(sections(short)).toBeGreaterThanOrEqual(4);
    expect(sections(long)).toBeGreaterThanOrEqual(sections(short));
    expect(sections(long)).toBeLessThanOrEqual(9);
    let gaps = 0;
    for (const s of long) {
      if (s.sources.length === 0) {
        // A section the share cap starved stays in the outline, and the draft says what is missing.
        expect(draft.markdown).toContain(`## ${s.heading}\n\n[research gap: `);
        gaps += 1;
        continue;
      }
      expect(s.points.length).toBeGreaterThan(0);
    }
    expect(gaps).toBeLessThan(long.length / 2);
  });

  it('follows an edited brief: removed sections stay out, order is kept', async () => {
    const req = request();
    const { brief } = await run(req);
    const outline = brief.outline.filter((o) => o.heading !== 'How to choose a tankless water heater').reverse();
    const draft = await writer.draft({
      request: req,
      client: CLIENT,
      research: RESEARCH.structured,
      idempotencyKey: 'k',
      brief: { ...brief, outline },
    });
    const h2 = [...draft.markdown.matchAll(/^## (.+)$/gm)].map((m) => m[1]).filter((h) => h !== 'Sources');
    expect(h2).toEqual(outline.map((o) => o.heading).filter((h) => h !== 'Introduction'));
  });
});

describe('extractive writer: brief metadata and FAQs', () => {
  it('extracts FAQs from JSON-LD and question headings, with their sources', async () => {
    const { brief, draft } = await run(request());
    const byQuestion = new Map(brief.faqs.map((f) => [f.question, f]));
    expect(brief.faqs.length).toBeGreaterThan(2);
    expect(brief.faqs.length).toBeLessThanOrEqual(6);
    expect(byQuestion.get('Is a tankless water heater worth it?')?.sourceUrl).toBe(
      'https://www.flowpros.example/tankless-installation',
    );
    const heading = byQuestion.get('How long do tankless water heaters last?');
    expect(heading?.sourceUrl).toBe('https://blog.homewater.example/tankless-vs-tank');
    expect(heading?.answer).toBe(
      'A well-maintained tankless water heater lasts 20 years or more. Scale buildup is the main cause of early failure, so annual flushing matters more than the brand.',
    );
    expect(new Set(brief.faqs.map((f) => f.question.toLowerCase())).size).toBe(brief.faqs.length);
    expect(draft.markdown).toMatch(/^## Frequently asked questions\n\n### /m);
  });

  it('writes SEO metadata within limits', async () => {
    const article = (await run(request({ intent: 'educate' }))).brief.seoMetadata;
    const service = (await run(request({ pageContract: 'commercial_service', intent: 'convert' }))).brief.seoMetadata;
    for (const seo of [article, service]) {
      expect(seo.title.length).toBeLessThanOrEqual(60);
      expect(seo.title.toLowerCase()).toContain('tankless water heater');
      expect(seo.h1.toLowerCase()).toContain('tankless water heater');
      expect(seo.metaDescription.length).toBeGreaterThan(50);
      expect(seo.metaDescription.length).toBeLessThanOrEqual(155);
      expect(seo.slug).toBe('tankless-water-heater');
      expect(seo.primaryKeyword).toBe('tankless water heater');
      expect(seo.secondaryKeywords.length).toBeGreaterThan(3);
    }
    expect(service.title).toBe('Tankless Water Heater in Boulder County | HeatRight');
    expect(article.title).toBe('Tankless Water Heater: A Practical Guide');
    const quoted = RESEARCH.structured.sources.some((s) =>
      s.extraction.mainText.includes(article.metaDescription.replace(/…$/, '')),
    );
    expect(quoted).toBe(true);
  });

  it('gives entities from the term analysis: terms and entities with ranges', async () => {
    const { brief } = await run(request());
    const terms = brief.entities.filter((e) => e.kind === 'term');
    expect(terms.length).toBe(25);
    expect(brief.entities.length).toBeLessThanOrEqual(40);
    for (const e of brief.entities) {
      expect(e.sources).toBeGreaterThan(0);
      expect(e.range.p25).toBeLessThanOrEqual(e.range.p75);
    }
    expect(terms.map((t) => t.term)).toContain('flow rate');
  });

  it('uses the tone only to pick templates', async () => {
    const direct = (await run(request({ pageContract: 'commercial_service', tone: 'persuasive_direct' }))).draft;
    const friendly = (await run(request({ pageContract: 'commercial_service', tone: 'friendly_simple' }))).draft;
    expect(direct.markdown).toContain('## Talk to HeatRight');
    expect(direct.markdown).toContain('Contact HeatRight today.');
    expect(direct.markdown).toContain('## What HeatRight offers');
    expect(direct.markdown).toContain('## Tankless water heater: prices');
    expect(friendly.markdown).toContain('## Get in touch with HeatRight');
    expect(friendly.markdown).toContain('Get in touch with HeatRight to talk it through.');
    expect(friendly.markdown).toContain('## How HeatRight can help');
  });
});

describe('extractive writer: language and determinism', () => {
  it('prefers sources in the request language', async () => {
    const en = (await run(request())).draft;
    const german = buildResearch({ structured: true, pages: [...PAGES, ...GERMAN_PAGES] });
    const { brief, draft: de } = await run(request({ language: 'de', topic: 'Durchlauferhitzer' }), german, {
      ...CLIENT,
      knowledgeBase: null,
    });
    const germanUrls = [PAGES[PAGES.length - 1], ...GERMAN_PAGES].map((p) => p?.url);
    expect(en.sentences.some((s) => s.sourceUrl?.includes('warmwasser'))).toBe(false);
    const cited = de.sentences.filter((s) => s.sourceUrl !== null);
    expect(new Set(cited.map((s) => s.sourceUrl)).size).toBeGreaterThanOrEqual(2);
    for (const s of cited) expect(germanUrls).toContain(s.sourceUrl);
    // German questions; no English template heading (the FAQ heading is translated when FAQs fit the draft).
    expect(brief.faqs.length).toBeGreaterThan(0);
    for (const f of brief.faqs) expect(germanUrls).toContain(f.sourceUrl);
    expect(de.markdown).not.toMatch(/^## (?:Frequently asked questions|Key takeaways|Contact )/m);
    for (const o of brief.outline.slice(1)) expect(o.heading).not.toMatch(/Durchlauferhitzer: |^Contact /);
  });

  it('gives byte-identical output for the same input', async () => {
    const req = request({ pageContract: 'commercial_service', intent: 'convert' });
    const a = await run(req);
    const other = createExtractiveWriter({ analyzer: createAnalysis().analyzer });
    const input = { request: req, client: CLIENT, research: buildResearch({ structured: true }), idempotencyKey: 'x' };
    const brief = await other.brief(input);
    const draft = await other.draft({ ...input, brief });
    expect(JSON.stringify(brief)).toBe(JSON.stringify(a.brief));
    expect(draft.markdown).toBe(a.draft.markdown);
    expect(JSON.stringify(draft)).toBe(JSON.stringify(a.draft));
  });
});
