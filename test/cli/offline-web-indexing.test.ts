import { describe, expect, it } from 'vitest';
import { formatOfflineWeb, type OfflineWebSummary } from '../../src/cli/offline-web.ts';

const providers = { SERP_PROVIDER: 'archive', LLM_PROVIDER: 'extractive', AGENT_API_OFFLINE: true } as const;
const summary = (extra: Partial<OfflineWebSummary>): OfflineWebSummary => ({
  path: '/data/web',
  sample: false,
  files: 1,
  bytes: 1000,
  pages: 2000,
  sites: 300,
  topics: [],
  other: null,
  ...extra,
});

describe('the first screen says the archive is indexed in the background', () => {
  it('for an archive with files, naming stderr and /readyz', () => {
    const text = formatOfflineWeb(summary({}), providers).join('\n');
    expect(text).toContain('indexed in the background: progress goes to stderr, and GET /readyz answers 503');
  });

  it('not for an archive that cannot be read or holds no WARC file', () => {
    for (const s of [summary({ error: 'ENOENT' }), summary({ files: 0, pages: null })])
      expect(formatOfflineWeb(s, providers).join('\n')).not.toContain('indexed in the background');
  });
});
