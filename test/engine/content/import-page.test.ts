/**
 * The imported page of `project_mode: optimize`: real pages (test/fixtures/import/) through the real extractor, then
 * importedMarkdown. The forum pages carry the furniture that leaked into drafts before: cookie notices, pagination,
 * post action links, post numbers and dates, a reply quoting another, hostile author names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { emptyExtraction, extract } from '../../../src/engine/analysis/extract/index.ts';
import type { Extraction } from '../../../src/engine/analysis/extract/types.ts';
import { readThread } from '../../../src/engine/analysis/extract/thread.ts';
import { importedMarkdown, plainName } from '../../../src/engine/content/import-page.ts';
import { escapeText } from '../../../src/engine/rendering/markdown.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const FORUM_URL = 'https://forum.diyplumbing.example/threads/tankless-water-heater-keeps-going-cold.48213/';
const QA_URL =
  'https://www.heatright.example/community/questions/1182/how-often-should-a-tankless-water-heater-be-descaled';
const PHPBB_URL = 'https://heatingtalk.example/viewtopic.php?t=812';
const SERVICE_URL = 'https://www.heatright.example/services/tankless-water-heater-installation/';
const BLOG_URL = 'https://www.heatright.example/blog/how-to-flush-a-tankless-water-heater/';

const html = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

/** The page as the lead's research step imports it: the extraction, plus the page for the thread reader. */
function importPage(name: string, url: string): { md: string; e: Extraction } {
  const page = html(name);
  const e = extract(page, { url });
  return { md: importedMarkdown(e, { html: page, url }), e };
}

const marked = new Marked({ gfm: true, async: false });
const render = (md: string): string => marked.parse(md) as string;

/** Markdown lines that are blocks: tables left out (delimiter rows repeat), values without a letter too. */
function blockKeys(md: string): string[] {
  return md
    .split('\n')
    .map((l) =>
      l
        .replace(/^(#{1,6}|-|\d+\.)\s+/, '')
        .replace(/\s+/g, ' ')
        .trim()
        .toLowerCase(),
    )
    .filter((l) => /\p{L}/u.test(l) && !l.startsWith('|'));
}

function expectNoDuplicates(md: string): void {
  const keys = blockKeys(md);
  const repeated = keys.filter((k, i) => keys.indexOf(k) !== i);
  expect(repeated).toEqual([]);
}

function expectInOrder(md: string, texts: readonly string[]): void {
  const at = texts.map((t) => md.indexOf(t));
  for (const [i, pos] of at.entries()) expect(pos, texts[i]).toBeGreaterThanOrEqual(0);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

describe('importedMarkdown: forum thread (XenForo-style, DiscussionForumPosting JSON-LD)', () => {
  const { md, e } = importPage('forum-thread.html', FORUM_URL);
  const question = 'We had a Rinnai RU199 tankless heater installed last spring.';
  const replies = [
    'That is the classic cold water sandwich.',
    'Before adding a pump, check the minimum flow rate.',
    'Update from the original poster',
  ];

  it('puts the question first, then every reply as its own section', () => {
    expect(md.startsWith('# Tankless water heater keeps going cold mid-shower\n\n## Question by MarthaK\n\n')).toBe(
      true,
    );
    expectInOrder(md, [question, ...replies]);
    const sections = md.split('\n').filter((l) => l.startsWith('## '));
    expect(sections).toHaveLength(4);
    expect(sections[0]).toBe('## Question by MarthaK');
    expect(sections[1]).toBe('## Reply 1 by PipeDreamer');
    expect(sections.slice(1).every((s) => s.startsWith('## Reply'))).toBe(true);
    // Each reply sits under its own header.
    const [, ...bodies] = md.split(/^## .*$/m);
    expect(bodies[0]).toContain(question);
    for (const [i, r] of replies.entries()) expect(bodies[i + 1]).toContain(r);
  });

  it('leaves out the cookie notice, navigation, pagination, breadcrumbs and post chrome', () => {
    // The extractor kept these: they are what the importer must drop.
    expect(e.mainText).toContain('We use cookies');
    expect(e.mainText).toContain('Page 1 of 2');
    for (const text of [
      'cookies',
      'Accept',
      'Learn more',
      "What's new",
      'Members',
      'Water Heaters',
      'Page 1 of 2',
      'Thread starter',
      'Share:',
      'Facebook',
      'Like',
      'Report',
      'Click to expand',
      'said:',
      '#2',
      'Feb 11, 2024',
      'Licensed Plumber',
      'XenForo',
    ]) {
      expect(md, text).not.toContain(text);
    }
    expect(md).not.toMatch(/^(Reply|Share|Report|Quote)$/m);
  });

  it('writes a block once: the quoted paragraph stays in the post it came from', () => {
    expectNoDuplicates(md);
    expect(count(md, 'That is the classic cold water sandwich.')).toBe(1);
    expect(md.indexOf('That is the classic cold water sandwich.')).toBeLessThan(
      md.indexOf('## Reply 2 by Free heater'),
    );
  });

  it('keeps list items as items', () => {
    expect(md).toContain(
      '- The gas valve is fully open\n- The inlet water filter is clean\n- No error code shows on the controller',
    );
    expect(md).toContain(
      '1. Turn the gas and power off\n2. Remove the burner cover\n3. Clean the flame rod with fine steel wool',
    );
  });

  it('turns hostile author names and page text into plain text, never markup', () => {
    expect(md).not.toContain('[Free heater](');
    expect(md).not.toMatch(/(?<!\\)<script/i);
    expect(md).toContain('## Reply 2 by Free heater');
    const out = render(md);
    expect(out).not.toMatch(/<script|<a\s|<img/i);
    expect(out).not.toContain('evil.example/win');
    // Literal code in a post is still there, as text.
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt; tag will not fix that');
  });

  it('without the page HTML still drops chrome and repeats, and escapes the author headings', () => {
    const flat = importedMarkdown(e);
    expectInOrder(flat, [question, ...replies]);
    expectNoDuplicates(flat);
    for (const text of ['cookies', 'Page 1 of 2', 'Click to expand', 'Share:']) expect(flat).not.toContain(text);
    // Without the thread reader an author name is a heading like any other: escaped, so the markdown link in it
    // stays text (a bare URL may still be autolinked, showing its own address).
    expect(flat).toContain('### [Free heater]\\(https://evil.example/win)');
    const out = render(flat);
    expect(out).not.toMatch(/<script|<img|>Free heater<\/a>/i);
  });
});

describe('importedMarkdown: Q&A thread (schema.org QAPage microdata)', () => {
  const { md } = importPage('qa-thread.html', QA_URL);
  const question = 'We live in a hard water area.';
  const answers = [
    'In hard water, descale once a year at the very least.',
    'If your water hardness is above 180 parts per million',
    'One thing nobody mentions',
  ];

  it('puts the question first and keeps every answer with its author', () => {
    expect(md.startsWith('# How often should a tankless water heater be descaled?\n\n## Question by Dana R\n\n')).toBe(
      true,
    );
    expectInOrder(md, ['## Question by Dana R', question, '## Reply 1 by Tom the Plumber', ...answers]);
    expect(md.split('\n').filter((l) => l.startsWith('## '))).toHaveLength(4);
    expect(md).toContain('## Reply 3 by Lee');
  });

  it('keeps headings inside a post below the post header, and the post list', () => {
    expect(md).toContain('### What you need\n\n- A submersible utility pump\n- Two washing machine hoses');
  });

  it('drops votes, tags, post menus, counts, pagination and breadcrumbs', () => {
    for (const text of [
      'This website uses cookies',
      'Allow cookies',
      'Improve this question',
      'Follow',
      'Flag',
      'Share',
      '3 Answers',
      'tankless\n',
      'descaling\n',
      'Page 1 of 1',
      'Home ›',
      'Related questions',
      'asked',
    ]) {
      expect(md, text).not.toContain(text);
    }
    expectNoDuplicates(md);
  });

  it('neutralises hostile author names', () => {
    const out = render(md);
    expect(out).not.toMatch(/<a\s|<img|javascript:/i);
    expect(md).not.toContain('](');
    expect(md).toMatch(/^## Reply 2 by Best deals javascript alert 1$/m);
  });

  it('keeps every post in order when the page is not taken for a forum', () => {
    const page = html('qa-thread.html');
    const url = 'https://www.heatright.example/ask/1182/how-often-should-a-tankless-water-heater-be-descaled';
    const flat = importedMarkdown(extract(page, { url }), { html: page, url });
    expectInOrder(flat, [question, ...answers]);
    expect(flat).not.toContain('## Question');
    expectNoDuplicates(flat);
  });
});

describe('importedMarkdown: phpBB thread', () => {
  const { md } = importPage('forum-phpbb.html', PHPBB_URL);

  it('takes the topic, not the board name in the header, as the H1', () => {
    expect(md.startsWith('# Boiler pressure drops overnight\n\n## Question by Gareth\n\n')).toBe(true);
  });

  it('drops the per-post subjects, bylines, quote buttons and post counts', () => {
    expect(md).toContain('## Reply 1 by HeatEngineer\n\nCheck the pipe from the pressure relief valve');
    for (const text of ['Re:', 'Quote', 'by Gareth »', 'Mon Jan 08', '4 posts', 'Board index', 'Posts:'])
      expect(md, text).not.toContain(text);
  });
});

describe('importedMarkdown: service page', () => {
  const { md, e } = importPage('service-page.html', SERVICE_URL);

  it('writes a repeated call-to-action block once', () => {
    expect(count(e.mainText, 'Get your free installation quote')).toBe(3);
    expect(count(md, 'Get your free installation quote')).toBe(1);
    expect(count(md, 'Call (303) 555-0100 or book online.')).toBe(1);
    expectNoDuplicates(md);
  });

  it('keeps the heading levels, capped at H3, under the page H1', () => {
    expect(md.startsWith('# Tankless Water Heater Installation in Denver\n\n')).toBe(true);
    expect(md.match(/^# /gm)).toHaveLength(1);
    expect(md).toContain('\n## Why homeowners switch to tankless\n');
    expect(md).toContain('\n## Frequently asked questions\n');
    expect(md).toContain('\n### How long does a tankless installation take?\n');
    expect(md).toContain('\n### Do I need a permit?\n'); // an <h4> on the page
  });

  it('keeps lists and the pricing table', () => {
    expect(md).toContain('- Hot water that never runs out, even with back-to-back showers\n- Units last 20 years');
    expect(md).toContain(
      '1. Free in-home assessment of gas line, venting and water hardness\n2. Written fixed-price quote with no hidden fees\n3. ',
    );
    expect(md).toContain(
      '| Unit | Typical installed price | Best for |\n| --- | --- | --- |\n| Rinnai RE160 | $3,400 | 1 to 2 bathrooms |',
    );
  });

  it('drops the breadcrumb trail, the newsletter box and the cookie banner', () => {
    expect(e.mainText).toContain('Home › Services ›');
    expect(e.mainText).toContain('Subscribe to our newsletter');
    for (const text of ['Home ›', 'newsletter', 'cookies', 'Skip to content', 'Privacy policy'])
      expect(md, text).not.toContain(text);
    expect(md).toContain('Serving Denver, Aurora, Lakewood and Littleton.');
  });
});

describe('importedMarkdown: blog article', () => {
  const { md, e } = importPage('blog-article.html', BLOG_URL);

  it('keeps the article in order with its heading levels', () => {
    expect(md.startsWith('# How to Flush a Tankless Water Heater (Step by Step)\n\nScale is the number one')).toBe(
      true,
    );
    expectInOrder(md, [
      '## What you will need',
      '## Step-by-step instructions',
      '### 1. Shut off power, gas and water',
      '### 2. Connect the pump and hoses',
      '### A note on older Rinnai models',
      '### 3. Circulate for an hour',
      '## How often should you flush?',
      'Not comfortable doing it yourself?',
    ]);
    // "1. Shut off..." stays a heading, not a list.
    expect(render(md)).toContain('<h3>1. Shut off power, gas and water</h3>');
  });

  it('keeps lists and the table', () => {
    expect(md).toContain('- A small submersible pump (1/6 horsepower is plenty)\n- Two washing machine hoses\n');
    expect(md).toContain('1. Open both service port valves\n2. Start the pump');
    expect(md).toContain('4. Flush with clean water for five minutes');
    expect(md).toContain('| Water hardness | Flush every |\n| --- | --- |\n| Under 120 ppm | 2 years |');
  });

  it('drops pagination, share buttons, comments, the sidebar and the cookie bar', () => {
    expect(e.mainText).toContain('Page 1 of 3');
    for (const text of ['Page 1 of 3', 'Share this', 'Great guide', 'Recent posts', 'cookies', 'ACCEPT'])
      expect(md, text).not.toContain(text);
    expectNoDuplicates(md);
  });

  it('is not read as a forum thread', () => {
    expect(readThread(html('blog-article.html'), { url: BLOG_URL })).toBeNull();
    expect(md).not.toContain('## Question');
  });
});

describe('readThread', () => {
  it("lines up with the extraction's main text, one line per block", () => {
    const page = html('forum-thread.html');
    const thread = readThread(page, { url: FORUM_URL });
    const e = extract(page, { url: FORUM_URL });
    expect(thread?.lines.map((l) => l.text)).toEqual(e.mainText.split(/\n+/));
    expect(thread?.posts.map((p) => p.author)).toEqual([
      'MarthaK',
      'PipeDreamer',
      '[Free heater](https://evil.example/win)',
      "<script>alert('x')</script>",
    ]);
    const byline = thread?.lines.filter((l) => l.byline).map((l) => l.text);
    expect(byline).toEqual(thread?.posts.map((p) => p.author));
  });

  it('reads authors from schema.org microdata, hidden names included', () => {
    const thread = readThread(html('qa-thread.html'), { url: QA_URL });
    expect(thread?.posts.map((p) => p.author)).toEqual([
      'Dana R',
      'Tom the Plumber',
      '[Best deals](javascript:alert(1))',
      '<img src=x onerror=alert(1)>Lee',
    ]);
  });

  it('is null for pages that are not forums and never throws', () => {
    expect(readThread(html('service-page.html'), { url: SERVICE_URL })).toBeNull();
    expect(readThread('', {})).toBeNull();
    expect(readThread(undefined as unknown as string)).toBeNull();
  });
});

describe('importedMarkdown: rules on a hand-made extraction', () => {
  const base = (over: Partial<Extraction>): Extraction => ({ ...emptyExtraction(), ...over });

  it('drops whitespace and case variants of a block', () => {
    const md = importedMarkdown(
      base({
        h1: 'Drain cleaning',
        mainText: 'Drain cleaning\n\nCall us today.\n\ncall   US today\n\nSame-day service\n\nSAME-DAY SERVICE',
        paragraphs: ['Call us today.', 'call US today'],
        headings: [
          { level: 1, text: 'Drain cleaning' },
          { level: 2, text: 'Same-day service' },
          { level: 2, text: 'SAME-DAY SERVICE' },
        ],
      }),
    );
    expect(md).toBe('# Drain cleaning\n\nCall us today.\n\n## Same-day service');
  });

  it('uses the title when there is no H1, without the site name', () => {
    const md = importedMarkdown(
      base({ title: 'Drain cleaning in Denver | HeatRight', siteName: 'HeatRight', mainText: 'We clear drains.' }),
    );
    expect(md).toBe('# Drain cleaning in Denver\n\nWe clear drains.');
  });

  it('escapes page text that would become markup', () => {
    const lines = [
      '# not a heading',
      '- not an item',
      '1. not a list',
      '> not a quote',
      '<img src=x onerror=alert(1)>',
      'see [this](javascript:alert(1)) and ![i](https://t.example/p.gif)',
      '---',
      '| a | b |',
    ];
    const md = importedMarkdown(base({ h1: 'T', mainText: lines.join('\n\n'), paragraphs: lines }));
    const out = render(md);
    expect(out).not.toMatch(/<(h[2-6]|li|blockquote|img|hr|table)[\s>]|href="javascript|>this<\/a>/i);
    expect(out).toContain('# not a heading');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeText('2024. A good year')).toBe('2024\\. A good year');
  });

  it('drops pagination, action links and breadcrumb lines but keeps prose that mentions them', () => {
    const lines = [
      'Page 2 of 5',
      '« Prev 1 2 3 Next »',
      'Reply | Quote | Report',
      'Home › Services › Drains',
      'Home / Services / Drains',
      'Next, open the valve and let the water run.',
      'We reply within one business day.',
      'Share your questions with our team.',
    ];
    const md = importedMarkdown(base({ h1: 'T', mainText: lines.join('\n\n'), paragraphs: lines }));
    expect(md).toBe(
      '# T\n\nNext, open the valve and let the water run.\n\nWe reply within one business day.\n\nShare your questions with our team.',
    );
  });

  it('lets values without a letter repeat (prices, scores) and keeps ranks outside forums', () => {
    const lines = ['#1', 'Acme plan', '$11.99', '#2', 'Zeta plan', '$11.99', 'acme PLAN'];
    const md = importedMarkdown(base({ h1: 'T', mainText: lines.join('\n\n'), paragraphs: lines }));
    expect(md).toBe('# T\n\n#1\n\nAcme plan\n\n$11.99\n\n#2\n\nZeta plan\n\n$11.99');
  });

  it('keeps a page about cookies (the baked kind)', () => {
    const text = 'We use cookies from the farmers market in this recipe, and the dough rests overnight.';
    expect(importedMarkdown(base({ h1: 'Cookie crumble', mainText: text }))).toContain(text);
  });
});

describe('plainName', () => {
  it.each([
    ['[Free heater](https://evil.example/win)', 'Free heater https evil.example win'],
    ["<script>alert('x')</script>", "alert 'x'"],
    ['**bold** _under_ `code` # ! |', 'bold under code'],
    ['john_doe', 'john_doe'],
    ['www.evil.example', 'www evil.example'],
    ['bob@evil.example', 'bob evil.example'],
    ['Zoë Müller-Łukasz', 'Zoë Müller-Łukasz'],
  ])('%s', (raw, expected) => {
    expect(plainName(raw)).toBe(expected);
  });

  it('cuts long names at a word', () => {
    const name = plainName('word '.repeat(40));
    expect(name.length).toBeLessThanOrEqual(60);
    expect(name.endsWith('word')).toBe(true);
  });
});
