import { describe, expect, it } from 'vitest';
import { createWink } from '../../../src/engine/analysis/wink.ts';
import { createTermAnalyzer } from '../../../src/engine/analysis/terms/analyzer.ts';

describe('wink instances in one process', () => {
  it('twenty instances load and split alike (the model alone breaks at the 17th: "Invalid string length")', () => {
    const text = 'A.O. Smith makes water heaters. They cost about $1,200 in the U.S. today.';
    const first = createWink(['sbd']).readDoc(text).sentences().out();
    expect(first).toHaveLength(2);
    for (let i = 0; i < 20; i++)
      expect(createWink(['sbd', 'pos', 'ner']).readDoc(text).sentences().out()).toEqual(first);
  });

  it('an analyser rebuilding its instance every page keeps answering the same terms', () => {
    const analyzer = createTermAnalyzer({ recycleAfterDocuments: 1 });
    const doc = {
      text: 'Tankless water heaters save energy. A tankless heater heats water on demand.',
      language: 'en',
    };
    const first = analyzer.analyzeDocument(doc);
    for (let i = 0; i < 18; i++) expect(analyzer.analyzeDocument(doc)).toEqual(first);
  });
});
