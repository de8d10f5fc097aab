/** The extractive writer on the shipped sample archive: real (invented) sites, search, fetch and extract. */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAnalysis } from '../../../src/engine/analysis/analysis.ts';
import {
  availableWords,
  countWords,
  createExtractiveWriter,
  MAX_SOURCE_SHARE,
} from '../../../src/engine/content/extractive/index.ts';
import type { ClientContext, ContentRequest } from '../../../src/engine/content/types.ts';
import { isQuoted, request } from './extractive-fixtures.ts';
import { archiveResearch, SAMPLE_ARCHIVE } from './archive-research.ts';

const writer = createExtractiveWriter({ analyzer: createAnalysis().analyzer });
const research = archiveResearch;

const CASES: { query: string; req: Partial<ContentRequest>; client: ClientContext; excluded: RegExp }[] = [
  {
    query: 'emergency plumber austin',
    req: {
      topic: 'emergency plumber austin',
      pageContract: 'commercial_service',
      intent: 'convert',
      wordCountTarget: 1200,
    },
    client: {
      name: 'Acme Plumbing',
      domain: 'acmeplumbing.example',
      serviceArea: 'Austin, TX',
      brandVoice: null,
      excludedTopics: ['gas line', 'slab leak'],
      knowledgeBase:
        'Acme Plumbing has served Austin homes since 2009.\n\nAll Acme plumbers are licensed by the Texas State Board of Plumbing Examiners.',
    },
    excluded: /gas lines?\b|slab leaks?\b/i,
  },
  {
    query: 'best espresso machine under 500',
    req: {
      topic: 'best espresso machine under 500',
      pageContract: 'article',
      intent: 'compete',
      wordCountTarget: 1500,
    },
    client: {
      name: 'Bean Street',
      domain: null,
      serviceArea: null,
      brandVoice: null,
      excludedTopics: ['De’Longhi', 'Delonghi'],
      knowledgeBase: null,
    },
    excluded: /de[’']?longhi/i,
  },
];

describe.skipIf(!existsSync(SAMPLE_ARCHIVE))('extractive writer on the sample archive', () => {
  for (const c of CASES) {
    it(`writes a cited draft for "${c.query}"`, async () => {
      const res = await research(c.query);
      expect(res.sources.length).toBeGreaterThanOrEqual(4);
      const req = request(c.req);
      const input = { request: req, client: c.client, research: res, idempotencyKey: 'archive' };
      const brief = await writer.brief(input);
      const draft = await writer.draft({ ...input, brief });
      expect(draft.wordCount).toBe(countWords(draft.markdown));
      // A page gives at most MAX_SOURCE_SHARE of the draft, so only that much of each page's words counts here.
      const usable = res.sources.reduce(
        (n, src) => n + Math.min(availableWords({ ...res, sources: [src] }), MAX_SOURCE_SHARE * req.wordCountTarget),
        0,
      );
      if (usable >= req.wordCountTarget * 1.5)
        expect(Math.abs(draft.wordCount - req.wordCountTarget) / req.wordCountTarget).toBeLessThanOrEqual(0.15);
      for (const s of draft.sentences) {
        if (s.sourceUrl === null) continue;
        expect(isQuoted(res, c.client, s.text, s.sourceUrl), s.text).toBe(true);
      }
      expect(draft.markdown).not.toMatch(c.excluded);
      expect(JSON.stringify(brief)).not.toMatch(c.excluded);
      expect(brief.seoMetadata.title.length).toBeLessThanOrEqual(60);
    });
  }
});
