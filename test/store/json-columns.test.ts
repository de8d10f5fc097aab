import { describe, expect, it } from 'vitest';
import type { JsonColumn } from '../../src/store/json-column.ts';
import { JSON_COLUMNS } from '../../src/store/json-columns.ts';

/** A value of each JSON column, by `table.column`: every column of JSON_COLUMNS must have one. */
const SAMPLES: Record<string, unknown> = {
  'clients.excluded_topics': ['politics', 'competitor pricing'],
  'api_keys.scopes': ['copywriter:run', 'clients:write'],
  'oauth_clients.metadata': {
    client_name: 'Example client',
    redirect_uris: ['https://client.example/callback'],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  },
  'oauth_grants.scopes': ['optimize:run', 'reporter:read'],
  'oauth_codes.scopes': ['copywriter:read'],
  'oauth_tokens.scopes': ['clients:write'],
  'runs.checkpoint': { input: { projectId: 'p1' }, research: { sources: [] }, draft: null },
  'content_jobs.request': { keyword: 'roof repair', tone: 'friendly', wordCount: 1200 },
  'content_artifacts.outline': [{ heading: 'Intro', level: 2, points: ['a', 'b'] }],
  'content_artifacts.seo_metadata': { title: 'Roof repair', metaDescription: 'How to repair a roof.' },
  'content_artifacts.entities': [{ name: 'shingle', weight: 0.4 }],
  'content_artifacts.faqs': [{ question: 'How long?', answer: 'A day.' }],
  'content_artifacts.research': {
    sources: [{ id: 1, url: 'https://a.example/', title: 'A', platform: 'web' }],
    imported: null,
  },
  'content_artifacts.draft': { title: 'Roof repair', sections: [] },
  'content_artifacts.citations': [{ sentence: 0, source: 1 }],
  'content_artifacts.review': { issues: [] },
  'content_artifacts.score': { rankabilityScore: 71 },
  'optimizations.result': { rankabilityScore: 64, recommendations: [] },
  'optimizations.evidence': { competitors: 3 },
  'optimizations.scoring_model': { version: 1, terms: [['roof', 2.5]] },
  'optimizations.summary_extras': { recommendations: [], confidence: 'medium', warnings: ['thin SERP'] },
  'draft_scores.figures': { categoryScores: { content: 60 }, recommendations: ['r1'] },
  'tracker_projects.brand_names': ['Acme Roofing'],
  'tracker_projects.queries': ['best roofer austin'],
  'tracker_projects.platforms': ['chatgpt'],
  'tracker_scans.platforms': ['chatgpt'],
  'tracker_scans.missing_platforms': [],
  'tracker_scans.platform_scores': { chatgpt: { status: 'ok', spi: 42 } },
  'tracker_results.cited_urls': ['https://acme.example/'],
  'tracker_platform_summaries.top_cited': [['https://acme.example/', 3]],
};

/** Every column of JSON_COLUMNS as [`table.column`, column]. */
const COLUMNS = Object.entries(JSON_COLUMNS).flatMap(([table, columns]) =>
  Object.entries(columns).map(([column, codec]) => [`${table}.${column}`, codec] as const),
);

describe('JSON_COLUMNS', () => {
  it('has a sample for every column, and no sample for a column it lacks', () => {
    expect(COLUMNS.map(([name]) => name).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(COLUMNS)('%s: a written value reads back equal', (name, codec) => {
    const column = codec as JsonColumn<unknown>;
    const value = SAMPLES[name];
    const text = column.write(value);
    expect(text).toBe(JSON.stringify(value));
    expect(column.read(text)).toEqual(value);
    expect(column.readNullable(text)).toEqual(value);
    expect(column.readNullable(null)).toBeNull();
    expect(column.readOr(null, 'fallback')).toBe('fallback');
  });

  it('checks the small columns on write and read', () => {
    expect(() => JSON_COLUMNS.api_keys.scopes.write([1] as unknown as string[])).toThrow();
    expect(() => JSON_COLUMNS.tracker_projects.platforms.read('["myspace"]')).toThrow();
    expect(() => JSON_COLUMNS.oauth_grants.scopes.read('{"scope":"clients:write"}')).toThrow();
  });

  it('reads OAuth scopes as ours: a name this server does not know is dropped', () => {
    expect(JSON_COLUMNS.oauth_tokens.scopes.read('["reporter:read","openid","old:scope"]')).toEqual(['reporter:read']);
    expect(JSON_COLUMNS.oauth_codes.scopes.write(['reporter:read', 'clients:write'])).toBe(
      '["reporter:read","clients:write"]',
    );
  });

  it('writes a run checkpoint as the runner always did', () => {
    expect(JSON_COLUMNS.runs.checkpoint.write({})).toBe('{}');
    expect(JSON_COLUMNS.runs.checkpoint.write({ input: { a: 1 }, step: null })).toBe('{"input":{"a":1},"step":null}');
  });
});
