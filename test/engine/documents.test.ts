import { describe, expect, it } from 'vitest';
import { lex } from '../../src/engine/rendering/markdown.ts';
import { briefMarkdown, optimizationReportMarkdown } from '../../src/engine/rendering/documents.ts';
import { summarize } from '../../src/transport/mcp/summary.ts';

/** The markdown documents behind MCP resources write every page, client and brief string as text, never markup. */
const HOSTILE = '<img src=x onerror=alert(1)> [click](javascript:alert(1)) | # not a heading *bold*';

/** Every token of a document that is markup a string could have smuggled in. */
function injected(md: string): string[] {
  const out: string[] = [];
  const walk = (tokens: ReturnType<typeof lex>) => {
    for (const t of tokens) {
      // A bare http(s) URL the document names (a page's address) becomes an autolink; anything else is injected.
      const autolink = t.type === 'link' && /^https?:\/\/\S+$/.test(t.raw);
      if ((t.type === 'html' || t.type === 'link' || t.type === 'image') && !autolink) out.push(t.raw);
      const children = (t as { tokens?: ReturnType<typeof lex> }).tokens;
      if (children) walk(children);
      if (t.type === 'table') {
        const table = t as unknown as {
          header: { tokens: ReturnType<typeof lex> }[];
          rows: { tokens: ReturnType<typeof lex> }[][];
        };
        for (const c of [...table.header, ...table.rows.flat()]) walk(c.tokens);
      }
      if (t.type === 'list')
        for (const item of (t as unknown as { items: { tokens: ReturnType<typeof lex> }[] }).items) walk(item.tokens);
    }
  };
  walk(lex(md));
  return out;
}

describe('briefMarkdown', () => {
  it('renders metadata, outline, FAQs and terms, with hostile strings as text', () => {
    const md = briefMarkdown({
      job_id: 'j1',
      seo_metadata: {
        title: HOSTILE,
        metaDescription: 'Meta',
        slug: 's',
        h1: 'H',
        primaryKeyword: 'k',
        secondaryKeywords: [HOSTILE],
      },
      outline: [{ heading: HOSTILE, level: 2, points: [HOSTILE] }],
      faqs: [{ question: HOSTILE, answer: HOSTILE }],
      entities: [{ term: HOSTILE, kind: 'term', importance: 0.5, sources: 3, range: { p25: 1, median: 2, p75: 3 } }],
    });
    expect(md).toContain('## Outline');
    expect(md).toContain('## FAQs');
    expect(md).toContain('| term | kind |');
    expect(injected(md)).toEqual([]);
    // The table keeps its five columns: a pipe in a term cannot open a new cell.
    const row = md.split('\n').find((l) => l.startsWith('| ') && l.includes('onerror'))!;
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(5);
  });
});

describe('optimizationReportMarkdown', () => {
  it('renders score, recommendations and competitors; a page title cannot inject markup', () => {
    const md = optimizationReportMarkdown({
      keyword: 'emergency plumber',
      url: 'https://example.com/',
      status: 'complete',
      result: {
        rankabilityScore: 71.26,
        sourceWordCount: 900,
        competitorCount: 1,
        categoryScores: { coverage: 80 },
        recommendations: [{ priority: 'high', points: 2.5, recommendation: HOSTILE }],
        competitors: [{ position: 1, title: HOSTILE, url: 'https://c.example/', wordCount: 1200, score: 80 }],
        entities: [],
      },
    });
    expect(md).toContain('**Score:** 71.3 / 100');
    expect(md).toContain('## Recommendations');
    expect(injected(md)).toEqual([]);
  });

  it('says there is no result before completion', () => {
    expect(optimizationReportMarkdown({ keyword: 'k', url: 'u', status: 'running', result: null })).toContain(
      'No result yet',
    );
  });
});

describe('summarize (the text of an MCP tool result)', () => {
  it('names ids, status and counts, says what to call next, and is much shorter than the body', () => {
    const body = {
      job_id: 'j1',
      status: 'brief_ready',
      outline: Array.from({ length: 8 }, (_, i) => ({ heading: `Section ${i}`, points: ['a', 'b', 'c'] })),
      review: { word_count: 1200, claims_checked: 29 },
      long: 'x'.repeat(500),
    };
    const text = summarize('Get a content job', body, ['agent-api://copywriter/jobs/j1/brief.md']);
    expect(text).toContain('job_id="j1"');
    expect(text).toContain('status="brief_ready"');
    expect(text).toContain('outline: 8 items');
    expect(text).toContain('review.claims_checked=29');
    expect(text).toContain('approve_content_brief');
    expect(text).toContain('agent-api://copywriter/jobs/j1/brief.md');
    expect(text).not.toContain('xxxxx');
    expect(text.length).toBeLessThan(JSON.stringify(body).length / 2);
  });
});
