import { describe, expect, it } from 'vitest';
import { excludedMatcher } from '../../../src/engine/content/llm/excluded.ts';
import { languageName } from '../../../src/engine/content/llm/guidance.ts';
import { countWords, lengthWindow } from '../../../src/engine/content/llm/length.ts';
import { finishDraft, normalizeCitations } from '../../../src/engine/content/llm/markdown.ts';
import { clamp, slugify } from '../../../src/engine/content/llm/schemas.ts';
import { splitSentences } from '../../../src/engine/content/llm/sentences.ts';
import { SOURCES } from './llm-writer-fixtures.ts';

const ctx = { sources: SOURCES, h1: 'Fallback H1', language: 'en', mentionsExcluded: excludedMatcher(['hidden fees']) };

describe('countWords', () => {
  it('counts the body without the Sources list, citation markers, link targets or syntax', () => {
    const md =
      "# Fix a tap\n\nDon't panic [1][2]: see [the guide](https://x.example/a-b-c) and e-mail us.\n\n- Step one [3]\n\n## Sources\n\n- [1] [A long source title here](https://a.example)";
    expect(countWords(md)).toBe(13);
  });
  it('counts words of scripts written without spaces with Intl.Segmenter', () => {
    expect(countWords('# 蛇口の修理\n\n蛇口から水が漏れる原因はパッキンです。', 'ja')).toBeGreaterThan(6);
    expect(countWords('Wasserhahn tropft: Dichtung tauschen.', 'de')).toBe(4);
  });
  it('has a 15 percent window', () => {
    expect(lengthWindow(1000)).toEqual({ min: 850, max: 1150 });
  });
});

describe('excluded topics', () => {
  it('match case-insensitively from a word start, with any ending and any spacing', () => {
    const m = excludedMatcher(['price', 'Hidden fees', ' ']);
    expect(m('Our PRICES are fair')).toBe(true);
    expect(m('no hidden\n  fees')).toBe(true);
    expect(m('priceless advice')).toBe(true);
    expect(m('a caprice')).toBe(false);
    expect(excludedMatcher([])('anything')).toBe(false);
  });
});

describe('language names', () => {
  it('maps common codes, regions and scripts and gives null for unknown codes', () => {
    expect(languageName('en')).toBe('English');
    expect(languageName('en-US')).toBe('English (United States)');
    expect(languageName('pt_BR')).toBe('Portuguese (Brazil)');
    expect(languageName('zh-Hant-TW')).toBe('Chinese (Traditional, Taiwan)');
    expect(languageName('nl')).toBe('Dutch');
    expect(languageName('qq')).toBeNull();
  });
});

describe('brief helpers', () => {
  it('clamps at a word boundary and slugifies across scripts', () => {
    expect(clamp('Leaking tap repair in Leeds for landlords and homeowners alike today', 30)).toBe(
      'Leaking tap repair in Leeds',
    );
    expect(slugify('Wasserhahn tropft – Was tun?')).toBe('wasserhahn-tropft-was-tun');
    expect(slugify('Café crème')).toBe('cafe-creme');
    expect(slugify('蛇口 修理')).toBe('蛇口-修理');
  });
});

describe('sentences and citations', () => {
  it('keep markers with the sentence they follow', () => {
    expect(splitSentences('One fact. [2] Next one [1]. Last.')).toEqual(['One fact.[2]', 'Next one [1].', 'Last.']);
    expect(
      normalizeCitations('Fact.[2] More [1–3] and [^1]; bad [0] [12]. See [link](https://x) [2](https://y).', 3),
    ).toBe('Fact [2]. More [1][2][3] and [1]; bad. See [link](https://x) [2](https://y).');
  });
});

describe('finishDraft', () => {
  it('unwraps a fenced answer, drops a preamble, adds the missing H1 and keeps lists tight', () => {
    const d = finishDraft(
      '```markdown\nIntro text without heading [1].\n\n- a [2]\n- b\n  continued\n\n1. first\n2. second\n```',
      ctx,
    );
    expect(
      d.markdown.startsWith(
        '# Fallback H1\n\nIntro text without heading [1].\n\n- a [2]\n- b continued\n\n1. first\n2. second',
      ),
    ).toBe(true);
    expect(d.sentences.map((s) => [s.text, s.section])).toEqual([
      ['Intro text without heading.', 'Fallback H1'],
      ['a', 'Fallback H1'],
      ['b continued', 'Fallback H1'],
      ['first', 'Fallback H1'],
      ['second', 'Fallback H1'],
    ]);
    const p = finishDraft('Here is your draft:\n# Real H1\n\nBody.', ctx);
    expect(p.markdown).toBe('# Real H1\n\nBody.\n');
  });

  it('drops a localised references section and an excluded H1, keeping code blocks', () => {
    const d = finishDraft(
      '# All about hidden fees\n\n## Intro\n\nText [1].\n\n```\ncode line\n```\n\n## Quellen\n\n- x',
      ctx,
    );
    expect(d.markdown).toBe(
      `# Fallback H1\n\n## Intro\n\nText [1].\n\n\`\`\`\ncode line\n\`\`\`\n\n## Sources\n\n- [1] [How to fix a leaking tap](${SOURCES[0]!.url})\n`,
    );
    expect(d.wordCount).toBe(6);
  });
});
