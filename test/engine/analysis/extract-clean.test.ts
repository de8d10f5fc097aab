import { describe, expect, it } from 'vitest';
import { extract } from '../../../src/engine/analysis/extract/index.ts';
import { readThread } from '../../../src/engine/analysis/extract/thread.ts';
import { decodeBody } from '../../../src/providers/web/charset.ts';
import { textProblem } from '../../../src/tools/common/text.ts';
import { hostileString, seeded, sprinkle } from '../../helpers/hostile-text.ts';

/**
 * Text leaves the extraction layer clean of what operation inputs refuse: every string of an
 * extraction passes the input validator, prose line by line (a sentence of it may become a brief's point), whatever
 * the page carried, raw or as character references.
 */

/** Every string in `value`, with the name of the key it sits under. */
function strings(value: unknown, key = ''): { key: string; text: string }[] {
  if (typeof value === 'string') return [{ key, text: value }];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, key));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) =>
      strings(v, ['mainText', 'paragraphs', 'answer'].includes(k) ? k : key || k),
    );
  return [];
}

function expectClean(value: unknown, label: string): void {
  for (const { key, text } of strings(value)) {
    for (const line of text.split('\n'))
      expect(textProblem(line, 'short'), `${label}: ${key} ${JSON.stringify(line)}`).toBeNull();
  }
}

const PROSE =
  'Descaling a copper kettle takes white vinegar, lemon juice and ten minutes of patience; rinse it twice and boil fresh water before the first cup.';

function hostilePage(random: () => number): string {
  const s = (t: string) => sprinkle(random, t, 0.4);
  const refs = ['&#1;', '&#x84;', '&#x9d;', '&#0;', '&#xD800;', '&#x202E;', '&#xFFFE;', '&#x200B;', '&#127;'];
  const ref = () => refs[Math.floor(random() * refs.length)]!;
  const faq = JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'FAQPage',
    mainEntity: [
      {
        '@type': 'Question',
        name: s('How often to descale a copper kettle?'),
        acceptedAnswer: { '@type': 'Answer', text: s(PROSE) },
      },
    ],
  });
  return `<!doctype html><html lang="en"><head>
<title>${s('Copper Kettle Descaling Guide')} ${ref()}</title>
<meta name="description" content="${s('How to descale a copper kettle')}${ref()}">
<meta property="og:site_name" content="${s('Kettle Care')}">
<script type="application/ld+json">${faq}</script>
</head><body><main><article>
<h1>${s('Copper kettle descaling')}${ref()}</h1>
${Array.from({ length: 6 }, (_, i) => `<h2>${s(`Step ${i + 1}: descaling the kettle`)}${ref()}</h2><p>${s(PROSE)} ${ref()} ${hostileString(random, 12)}</p><p>${s(PROSE)}</p>`).join('\n')}
<ul><li>${s('white vinegar')}${ref()}</li><li>${s('lemon juice')}</li></ul>
<table><tr><th>${s('Method')}</th><th>${s('Time')}</th></tr><tr><td>${s('Vinegar soak')}${ref()}</td><td>${s('10 minutes')}</td></tr></table>
<p><a href="/care/${ref()}">${s('kettle care guide')}${ref()}</a> <img src="k.png" alt="${s('a copper kettle')}${ref()}"></p>
<pre>${s('line\tone')}\r\n${s('line two')}</pre>
</article></main></body></html>`;
}

describe('extract(): every string passes the input validator', () => {
  for (const seed of [7, 22, 99, 2026]) {
    it(`hostile page, seed ${seed}`, () => {
      const random = seeded(seed);
      for (let i = 0; i < 20; i++) {
        const e = extract(hostilePage(random), { url: 'https://kettles.example/descaling' });
        expect(e.title, `seed ${seed}, page ${i}`).toMatch(/copper/i);
        expect(e.wordCount).toBeGreaterThan(50);
        expectClean(e, `seed ${seed}, page ${i}`);
      }
    });
  }

  it('a forum thread read the same way keeps its lines aligned with mainText', () => {
    const post = (n: number, body: string) =>
      `<div class="post" id="post-${n}"><span class="username">user\u0084${n}\u202e</span><div class="content"><p>${body}</p></div></div>`;
    const html = `<html><head><title>Copper kettle descaling thread - Kettle Forum</title>
<meta property="og:type" content="forum"><meta name="generator" content="phpBB"></head><body><main>
${[1, 2, 3].map((n) => post(n, `Reply ${n}\u0001 about descaling the copper kettle with vinegar\u0085 and lemon, ${PROSE}`)).join('\n')}
</main></body></html>`;
    const e = extract(html, { url: 'https://forum.example/t/1' });
    expectClean(e, 'thread extraction');
    const thread = readThread(html, { url: 'https://forum.example/t/1' });
    expect(thread).not.toBeNull();
    expectClean(thread, 'thread');
    const lines = e.mainText.split('\n').filter((l) => l.trim() !== '');
    expect(thread!.lines.map((l) => l.text.trim())).toEqual(lines.map((l) => l.trim()));
  });

  it('a UTF-8 page that declares windows-1252: its title keeps its ™, no U+0084', () => {
    const bytes = Buffer.from(
      `<html><head><meta charset="windows-1252"><title>Acme™ Copper Kettle — “Descaling”</title></head><body><p>${PROSE}</p></body></html>`,
      'utf8',
    );
    const e = extract(decodeBody(bytes, 'text/html').text);
    expect(e.title).toBe('Acme™ Copper Kettle — “Descaling”');
    // Read as the page declares (the old decoding), the title carried U+0084; cleaned, it is refused no more.
    const misread = extract(Buffer.from(bytes).toString('latin1'));
    expect(misread.title).not.toContain('\u0084');
    expect(textProblem(misread.title, 'short')).toBeNull();
  });
});
