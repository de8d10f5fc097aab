import { describe, expect, it } from 'vitest';
import { excludedMatcher } from '../../../src/engine/content/llm/excluded.ts';
import { languageName } from '../../../src/engine/content/llm/guidance.ts';
import { countWords, lengthWindow } from '../../../src/engine/content/llm/length.ts';
import { finishDraft, normalizeCitations } from '../../../src/engine/content/llm/markdown.ts';
import { clamp, slugify } from '../../../src/engine/content/llm/schemas.ts';
import { splitSentences } from '../../../src/engine/analysis/sentences.ts';
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

describe('finishDraft reads Markdown with marked', () => {
  const sentences = (md: string) => finishDraft(md, ctx).sentences.map((s) => [s.text, s.section, s.sourceUrl]);

  it('reads nested lists, * and + bullets and ordered lists that start at other numbers', () => {
    const d = finishDraft(
      '# Tap care\n\n* Turn off the valve [1]\n  + Under the sink\n  + Or at the meter. It is red.\n* Drain the tap\n\n3. Unscrew the head [2]\n4. Swap the washer\n\n+ Plus bullet item',
      ctx,
    );
    expect(d.markdown).toBe(
      [
        '# Tap care',
        '',
        '- Turn off the valve [1]',
        '  - Under the sink',
        '  - Or at the meter. It is red.',
        '- Drain the tap',
        '',
        '3. Unscrew the head [2]',
        '4. Swap the washer',
        '',
        '- Plus bullet item',
        '',
        '## Sources',
        '',
        `- [1] [How to fix a leaking tap](${SOURCES[0]!.url})`,
        `- [2] [Dripping tap guide](${SOURCES[1]!.url})`,
        '',
      ].join('\n'),
    );
    expect(d.sentences).toEqual([
      { text: 'Turn off the valve', section: 'Tap care', sourceUrl: SOURCES[0]!.url },
      { text: 'Under the sink', section: 'Tap care', sourceUrl: null },
      { text: 'Or at the meter.', section: 'Tap care', sourceUrl: null },
      { text: 'It is red.', section: 'Tap care', sourceUrl: null },
      { text: 'Drain the tap', section: 'Tap care', sourceUrl: null },
      { text: 'Unscrew the head', section: 'Tap care', sourceUrl: SOURCES[1]!.url },
      { text: 'Swap the washer', section: 'Tap care', sourceUrl: null },
      { text: 'Plus bullet item', section: 'Tap care', sourceUrl: null },
    ]);
    // Markers and bullets are not words: 2 + 4 + 3 + 7 + 3 + 3 + 3 + 3.
    expect(d.wordCount).toBe(28);
  });

  it('drops an excluded list item with its nested items, and keeps loose lists loose', () => {
    const d = finishDraft(
      '# H\n\n- Hidden fees explained\n  - first nested\n  - second nested\n- A kept item [3]\n\n1. Loose one.\n\n2. Loose two. Hidden fees again.\n\n   A second paragraph.',
      ctx,
    );
    expect(d.markdown).toContain(
      '\n\n- A kept item [3]\n\n1. Loose one.\n\n2. Loose two.\n\n   A second paragraph.\n\n## Sources',
    );
    expect(d.markdown).not.toMatch(/nested|hidden/i);
  });

  it('reads setext headings as headings, not as sentences', () => {
    const d = finishDraft(
      'Fixing taps\n===========\n\nIntro [1].\n\nWhy taps leak\n-------------\n\nWorn washers.',
      ctx,
    );
    expect(d.markdown.startsWith('# Fixing taps\n\nIntro [1].\n\n## Why taps leak\n\nWorn washers.\n')).toBe(true);
    expect(sentences(d.markdown)).toEqual([
      ['Intro.', 'Fixing taps', SOURCES[0]!.url],
      ['Worn washers.', 'Why taps leak', null],
    ]);
    expect(d.wordCount).toBe(8);
  });

  it('keeps link text and drops emphasis marks in sentences; URLs are not words and do not split sentences', () => {
    const d = finishDraft(
      '# Links\n\nRead **the** _official_ [tap guide](https://water.example/guides/v2.1/taps.html) before you start [2]. Then check ***every*** `O-ring`. Escaped \\*stars\\* &amp; entities stay text.',
      ctx,
    );
    expect(d.sentences).toEqual([
      { text: 'Read the official tap guide before you start.', section: 'Links', sourceUrl: SOURCES[1]!.url },
      { text: 'Then check every O-ring.', section: 'Links', sourceUrl: null },
      { text: 'Escaped *stars* & entities stay text.', section: 'Links', sourceUrl: null },
    ]);
    expect(d.markdown).toContain(
      'Read **the** _official_ [tap guide](https://water.example/guides/v2.1/taps.html) before you start [2]. Then check ***every*** `O-ring`.',
    );
    // Links 1 + 8 + 4 + 5: no word of the URL counts.
    expect(d.wordCount).toBe(18);
  });

  it('drops one sentence of a paragraph with a link, writing the rest of the source back unchanged', () => {
    const d = finishDraft(
      '# H\n\nSee [our *tap* guide](https://x.example/a.b). We never add hidden fees. Call **us** today.',
      ctx,
    );
    expect(d.markdown).toBe('# H\n\nSee [our *tap* guide](https://x.example/a.b). Call **us** today.\n');
    expect(d.sentences.map((s) => s.text)).toEqual(['See our tap guide.', 'Call us today.']);
    // Emphasis across two sentences is one piece of source: it stays or goes whole.
    const e = finishDraft('# H\n\nOne. **Two. Three hidden fees.** Four.\n\n**Five. Six.** Seven.', ctx);
    expect(e.markdown).toBe('# H\n\nOne. Four.\n\n**Five. Six.** Seven.\n');
    expect(e.sentences.map((s) => s.text)).toEqual(['One.', 'Four.', 'Five.', 'Six.', 'Seven.']);
  });

  it('keeps fenced and indented code as code: no sentences, no citation changes, no citations counted', () => {
    const d = finishDraft(
      '# Code\n\nIntro sentence [1].\n\n```js\nconst a = arr[7]; b.[2] // Not prose. At all.\n```\n\n    indented code. Not prose [3].\n\n~~~\ntilde fence.\n~~~\n\nLast sentence.',
      ctx,
    );
    expect(d.sentences.map((s) => s.text)).toEqual(['Intro sentence.', 'Last sentence.']);
    expect(d.markdown).toContain('```js\nconst a = arr[7]; b.[2] // Not prose. At all.\n```');
    expect(d.markdown).toContain('\n\n    indented code. Not prose [3].\n\n~~~\ntilde fence.\n~~~\n\n');
    expect(d.markdown).toContain(`## Sources\n\n- [1] [How to fix a leaking tap](${SOURCES[0]!.url})\n`);
    expect(d.markdown).not.toContain('- [2]');
    expect(d.markdown).not.toContain('- [3]');
  });

  it('does not split at abbreviations, initials or decimals', () => {
    expect(
      sentences(
        '# Heaters\n\nA.O. Smith and Rheem make tank heaters [1]. Descale them yearly, e.g. with vinegar. U.S. homes often use a 3.5 kW element [2]. Done.',
      ).map((s) => s[0]),
    ).toEqual([
      'A.O. Smith and Rheem make tank heaters.',
      'Descale them yearly, e.g. with vinegar.',
      'U.S. homes often use a 3.5 kW element.',
      'Done.',
    ]);
  });

  it('keeps quotes as prose, and tables and HTML as they are', () => {
    const d = finishDraft(
      '# Q\n\n> A plumber said so [1]. Hidden fees are common.\n> Fix it early.\n\n| Part | Cost |\n| --- | --- |\n| Washer | £1 |\n| *Hidden* fees | £50 |\n\n<div class="note">HTML block.</div>',
      ctx,
    );
    expect(d.markdown).toContain(
      '# Q\n\n> A plumber said so [1]. Fix it early.\n\n| Part | Cost |\n| --- | --- |\n| Washer | £1 |\n\n<div class="note">HTML block.</div>',
    );
    expect(d.sentences.map((s) => s.text)).toEqual(['A plumber said so.', 'Fix it early.']);
  });

  it('unwraps a ```markdown fence after a short preamble and ignores numeric link definitions', () => {
    const d = finishDraft(
      'Sure, here is the page:\n\n```markdown\n# Page\n\nFact one [1]. Fact two [2].\n\n[1]: https://made-up.example\n[2]: https://other.example\n```',
      ctx,
    );
    expect(d.markdown.startsWith('# Page\n\nFact one [1]. Fact two [2].\n\n## Sources\n')).toBe(true);
    expect(d.sentences.map((s) => s.sourceUrl)).toEqual([SOURCES[0]!.url, SOURCES[1]!.url]);
  });
});
