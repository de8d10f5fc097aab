import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository explains itself: every relative link of README.md and docs/*.md reaches a file inside the
 * repository (and a heading, when it names one), nothing in README.md, docs/, src/ or test/ points at documents
 * kept beside the checkout, and every case id a test title cites is a case of docs/reliability.md.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under `dir` (relative to the repository root) whose name passes `keep`. */
function filesUnder(dir: string, keep: (name: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && keep(entry.name)) out.push(path);
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

const rel = (abs: string) => relative(ROOT, abs);

/** README.md and every Markdown file under docs/. */
function markdownFiles(): string[] {
  return [join(ROOT, 'README.md'), ...filesUnder('docs', (n) => n.endsWith('.md'))];
}

/** Markdown with the lines of fenced code blocks blanked (an unclosed fence runs to the end, as in CommonMark). */
export function withoutFences(md: string): string {
  let fence: string | null = null;
  return md
    .split('\n')
    .map((line) => {
      const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (fence === null) {
        if (!m) return line;
        fence = m[1]!;
        return '';
      }
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
      return '';
    })
    .join('\n');
}

/** Markdown without fenced code blocks and inline code spans, whose brackets are text, not links. */
export function withoutCode(md: string): string {
  return withoutFences(md).replace(/(`+)[^`\n]*?\1/g, '');
}

/** The targets of inline links and images (`[t](x)`, `![a](x)`) and of reference definitions (`[r]: x`). */
export function linkTargets(md: string): string[] {
  const text = withoutCode(md);
  const out: string[] = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
    out.push(m[1]!.replace(/^<|>$/g, ''));
  }
  for (const m of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/gm)) out.push(m[1]!.replace(/^<|>$/g, ''));
  return out;
}

/** GitHub's anchors for the headings of a Markdown file (lower case, punctuation dropped, spaces to hyphens). */
export function headingAnchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of withoutFences(md).matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const EXTERNAL = /^(?:https?:|mailto:)/i;

/** The problems of one link target found in `file`, or null when it resolves to a file inside the repository. */
export function linkProblem(file: string, target: string): string | null {
  if (EXTERNAL.test(target)) return null;
  const hash = target.indexOf('#');
  const pathPart = (hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
  const anchor = hash < 0 ? '' : target.slice(hash + 1);
  let decoded: string;
  try {
    decoded = decodeURI(pathPart);
  } catch {
    return `${target}: not a valid URL path`;
  }
  const abs = decoded === '' ? file : decoded.startsWith('/') ? join(ROOT, decoded) : resolve(dirname(file), decoded);
  const inside = relative(ROOT, abs);
  if (inside.startsWith('..') || isAbsolute(inside)) return `${target}: outside the repository`;
  if (!existsSync(abs)) return `${target}: no such file`;
  if (anchor !== '' && abs.endsWith('.md') && statSync(abs).isFile()) {
    if (!headingAnchors(readFileSync(abs, 'utf8')).has(decodeURIComponent(anchor).toLowerCase()))
      return `${target}: no heading #${anchor} in ${rel(abs)}`;
  }
  return null;
}

/** The index just past the string literal that starts at `i` (quote, escapes, template `${...}`), or -1. */
function endOfString(src: string, i: number): number {
  const quote = src[i];
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') j++;
    else if (c === quote) return j + 1;
    else if (quote === '`' && c === '$' && src[j + 1] === '{') {
      const end = endOfGroup(src, j + 1, '{', '}');
      if (end < 0) return -1;
      j = end - 1;
    } else if (quote !== '`' && c === '\n') return -1;
  }
  return -1;
}

/** The index just past the bracket that closes the one at `i`, skipping string literals, or -1. */
function endOfGroup(src: string, i: number, open: string, close: string): number {
  let depth = 0;
  for (let j = i; j < src.length; j++) {
    const c = src[j]!;
    if (c === "'" || c === '"' || c === '`') {
      const end = endOfString(src, j);
      if (end < 0) return -1;
      j = end - 1;
    } else if (c === open) depth++;
    else if (c === close && --depth === 0) return j + 1;
  }
  return -1;
}

/**
 * The titles of the `it`, `test` and `describe` calls of a test file, modifiers and tables included
 * (`it.each(rows)('E.44 ...')`, `describe.concurrent(...)`); template literals are returned as written.
 */
export function testTitles(source: string): string[] {
  const titles: string[] = [];
  for (const m of source.matchAll(/\b(?:it|test|describe)\b/g)) {
    if (m.index > 0 && /[.\w$]/.test(source[m.index - 1]!)) continue;
    let i = m.index + m[0].length;
    for (;;) {
      const modifier = /^\.[A-Za-z]\w*/.exec(source.slice(i, i + 40));
      if (modifier) {
        i += modifier[0].length;
        continue;
      }
      if (source[i] !== '(') break;
      let k = i + 1;
      while (/\s/.test(source[k] ?? '')) k++;
      if (source[k] === "'" || source[k] === '"' || source[k] === '`') {
        const end = endOfString(source, k);
        if (end > 0) titles.push(source.slice(k + 1, end - 1));
        break;
      }
      const end = endOfGroup(source, i, '(', ')');
      if (end < 0) break;
      i = end;
    }
  }
  return titles;
}

const CASE_IN_DOCS = /^- \*\*([A-Z])\.(\d{1,3}) /gm;
const CASE_IN_TITLE = /\b[A-I]\.\d{1,2}\b/g;

/** The case ids docs/reliability.md defines (`- **A.1 Name.** ...`), in file order. */
function reliabilityCases(): string[] {
  const md = readFileSync(join(ROOT, 'docs/reliability.md'), 'utf8');
  return [...md.matchAll(CASE_IN_DOCS)].map((m) => `${m[1]}.${m[2]}`);
}

describe('documentation links', () => {
  it('finds links, images and references, but not text inside code', () => {
    const md = [
      '[a](docs/a.md) ![img](img/x.png "title") [b](<docs/with space.md>)',
      '`[not](inline-code.md)` and',
      '```',
      '[not](fenced.md)',
      '```',
      '[ref]: ./ref.md',
    ].join('\n');
    expect(linkTargets(md)).toEqual(['docs/a.md', 'img/x.png', 'docs/with space.md', './ref.md']);
  });

  it('reports links that leave the repository, miss a file or miss a heading (the check can fail)', () => {
    const readme = join(ROOT, 'README.md');
    expect(linkProblem(readme, '../outside/doc.md')).toMatch(/outside the repository/);
    expect(linkProblem(readme, 'docs/no-such-file.md')).toMatch(/no such file/);
    expect(linkProblem(readme, 'docs/api.md#no-such-heading')).toMatch(/no heading/);
    expect(linkProblem(readme, 'docs/api.md#1-conventions')).toBeNull();
    expect(linkProblem(readme, 'https://example.com/x')).toBeNull();
    expect(linkProblem(readme, 'mailto:someone@example.com')).toBeNull();
  });

  it('every relative link and image in README.md and docs/*.md resolves to a file inside the repository', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of markdownFiles()) {
      for (const target of linkTargets(readFileSync(file, 'utf8'))) {
        checked++;
        const problem = linkProblem(file, target);
        if (problem) problems.push(`${rel(file)}: ${problem}`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});

describe('no document outside the repository is cited', () => {
  // Built from parts so this file does not contain the strings it looks for.
  const shared = ['shared', ''].join('/');
  const FORBIDDEN = [
    `../${shared}`,
    `${shared}API.md`,
    `${shared}RELIABILITY.md`,
    `${shared}ARCHITECTURE.md`,
    `${shared}spec`,
  ];

  it('README.md, docs/, src/ and test/ never mention them', () => {
    const files = [join(ROOT, 'README.md'), ...['docs', 'src', 'test'].flatMap((d) => filesUnder(d))];
    const hits: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const needle of FORBIDDEN) if (text.includes(needle)) hits.push(`${rel(file)}: ${needle}`);
    }
    expect(files.length).toBeGreaterThan(100);
    expect(hits).toEqual([]);
  });
});

describe('case ids of docs/reliability.md', () => {
  it('reads titles from it, test and describe calls, with modifiers, tables and templates', () => {
    const src = [
      "it('A.1 plain', () => {});",
      'it.each(casesFor(\'E.43\'))("E.43 table: %s", check);',
      'describe.concurrent(`C.27 ${name} template`, { timeout: 1 }, () => {});',
      'test(',
      "  'B.11 on its own line',",
      '  async () => {},',
      ');',
      "expect(items.it('X.1 not a test'));",
      'const fit = 1; submit(); // it is not a call',
    ].join('\n');
    expect(testTitles(src)).toEqual(['A.1 plain', 'E.43 table: %s', 'C.27 ${name} template', 'B.11 on its own line']);
  });

  it('defines every case A.1 to H.84 once, in order, and the Hardening (I) section', () => {
    const ranges: [string, number, number][] = [
      ['A', 1, 10],
      ['B', 11, 26],
      ['C', 27, 34],
      ['D', 35, 42],
      ['E', 43, 62],
      ['F', 63, 72],
      ['G', 73, 80],
      ['H', 81, 84],
    ];
    const expected = ranges.flatMap(([letter, from, to]) =>
      Array.from({ length: to - from + 1 }, (_, i) => `${letter}.${from + i}`),
    );
    const cases = reliabilityCases();
    expect(cases.filter((c) => !c.startsWith('I.'))).toEqual(expected);
    expect(new Set(cases).size).toBe(cases.length);
    expect(readFileSync(join(ROOT, 'docs/reliability.md'), 'utf8')).toMatch(/^## Hardening \(I\)$/m);
  });

  it('every case id cited in a test title exists in docs/reliability.md', () => {
    const defined = new Set(reliabilityCases());
    const unknown: string[] = [];
    let cited = 0;
    for (const file of filesUnder('test', (n) => n.endsWith('.test.ts'))) {
      for (const title of testTitles(readFileSync(file, 'utf8'))) {
        for (const [id] of title.matchAll(CASE_IN_TITLE)) {
          cited++;
          if (!defined.has(id)) unknown.push(`${rel(file)}: ${id} in '${title}'`);
        }
      }
    }
    expect(cited).toBeGreaterThan(100);
    expect(unknown).toEqual([]);
  });
});
