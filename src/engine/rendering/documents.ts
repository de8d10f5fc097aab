/**
 * Markdown documents for results too big to repeat in every answer: a content job's brief and an optimization's
 * report. MCP serves them as resources (src/transport/mcp/resources.ts). Every string from a page, a client or a
 * brief is hostile: it is written as literal text (escapeMarkdown), never as markup.
 */
import { escapeMarkdown } from './markdown.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const esc = (v: unknown): string => escapeMarkdown(str(v));
const num = (v: unknown): string => (typeof v === 'number' ? String(Math.round(v * 10) / 10) : '-');

/** A markdown table cell: escaped, and a pipe cannot end the cell. */
const cell = (v: unknown): string => esc(v) || '-';

/** The brief of a content job (outline, SEO metadata, FAQs, entities) as markdown. */
export function briefMarkdown(artifacts: {
  job_id: string;
  outline: unknown;
  seo_metadata: unknown;
  faqs: unknown;
  entities: unknown;
}): string {
  const seo = isObject(artifacts.seo_metadata) ? artifacts.seo_metadata : {};
  const out: string[] = [`# Brief: ${esc(seo.title) || esc(artifacts.job_id)}`, ''];
  if (isObject(artifacts.seo_metadata)) {
    out.push('## SEO metadata', '');
    for (const [label, key] of [
      ['Title', 'title'],
      ['Meta description', 'metaDescription'],
      ['Slug', 'slug'],
      ['H1', 'h1'],
      ['Primary keyword', 'primaryKeyword'],
    ] as const)
      if (str(seo[key])) out.push(`- **${label}:** ${esc(seo[key])}`);
    const secondary = list(seo.secondaryKeywords).map(esc).filter(Boolean);
    if (secondary.length) out.push(`- **Secondary keywords:** ${secondary.join(', ')}`);
    out.push('');
  }
  const outline = list(artifacts.outline).filter(isObject);
  if (outline.length) {
    out.push('## Outline', '');
    for (const s of outline) {
      const level = typeof s.level === 'number' && s.level >= 3 ? 4 : 3;
      out.push(`${'#'.repeat(level)} ${esc(s.heading)}`, '');
      const points = list(s.points).map(esc).filter(Boolean);
      if (points.length) out.push(`Points to cover: ${points.join('; ')}`, '');
    }
  }
  const faqs = list(artifacts.faqs).filter(isObject);
  if (faqs.length) {
    out.push('## FAQs', '');
    for (const f of faqs) out.push(`- **${esc(f.question)}** ${esc(f.answer)}`);
    out.push('');
  }
  const entities = list(artifacts.entities).filter(isObject);
  if (entities.length) {
    out.push(
      '## Terms and entities',
      '',
      '| term | kind | importance | pages | typical uses |',
      '|---|---|---|---|---|',
    );
    for (const e of entities) {
      const range = isObject(e.range) ? `${num(e.range.p25)}-${num(e.range.p75)}` : '-';
      out.push(`| ${cell(e.term)} | ${cell(e.kind)} | ${num(e.importance)} | ${num(e.sources)} | ${range} |`);
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** An optimization's full report (view=full) as markdown: score, categories, advice, competitors. */
export function optimizationReportMarkdown(record: Json): string {
  const result = isObject(record.result) ? record.result : null;
  const out: string[] = [
    `# Optimization report: ${esc(record.keyword)}`,
    '',
    `- **Page:** ${esc(record.url)}`,
    `- **Status:** ${esc(record.status)}`,
  ];
  if (!result) {
    out.push('', 'No result yet: the report is written once the optimization is complete.');
    return `${out.join('\n')}\n`;
  }
  out.push(
    `- **Score:** ${num(result.rankabilityScore)} / 100`,
    `- **Words on the page:** ${num(result.sourceWordCount)}`,
    `- **Competitors:** ${num(result.competitorCount)}`,
    `- **Confidence:** ${esc(result.confidence ?? 'normal')}`,
    '',
  );
  const warnings = list(result.warnings).map(esc).filter(Boolean);
  if (warnings.length) out.push('## Warnings', '', ...warnings.map((w) => `- ${w}`), '');
  if (isObject(result.categoryScores)) {
    out.push('## Categories', '', '| category | earned |', '|---|---|');
    for (const [k, v] of Object.entries(result.categoryScores)) out.push(`| ${cell(k)} | ${num(v)}% |`);
    out.push('');
  }
  const recs = list(result.recommendations).filter(isObject);
  if (recs.length) {
    out.push('## Recommendations', '', 'Most points first.', '');
    for (const r of recs) out.push(`- **${esc(r.priority)}** (+${num(r.points)}) ${esc(r.recommendation)}`);
    out.push('');
  }
  const competitors = list(result.competitors).filter(isObject);
  if (competitors.length) {
    out.push('## Competitors', '', '| position | page | words | score |', '|---|---|---|---|');
    for (const c of competitors)
      out.push(`| ${num(c.position)} | ${cell(c.title)} (${cell(c.url)}) | ${num(c.wordCount)} | ${num(c.score)} |`);
    out.push('');
  }
  const excluded = list(result.excluded_competitors).filter(isObject);
  if (excluded.length) {
    out.push('## Ranking pages left out', '');
    for (const x of excluded) out.push(`- ${esc(x.url)}: ${esc(x.reason)} (${esc(x.detail)})`);
    out.push('');
  }
  const entities = list(result.entities).filter(isObject);
  if (entities.length) {
    out.push('## Terms', '', '| term | status | on the page | competitors (p25-p75) |', '|---|---|---|---|');
    for (const e of entities) {
      const range = isObject(e.competitorRange) ? `${num(e.competitorRange.p25)}-${num(e.competitorRange.p75)}` : '-';
      out.push(`| ${cell(e.term)} | ${cell(e.status)} | ${num(e.sourceUses)} | ${range} |`);
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
