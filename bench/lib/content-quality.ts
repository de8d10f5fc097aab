/**
 * The content bench's quality phase: one auto content job per demo topic of the sample archive (web-archive/README.md)
 * with the offline writer, and per draft the figures that say whether it reads as one page written for the client
 * rather than a stitch of the researched pages: how much of it comes from one source page, planted boilerplate
 * (bench/lib/boilerplate-detector.ts), repeated sentences, and the size of the default artifacts answer.
 */
import type { Token } from 'marked';
import { Agent, request } from 'undici';
import { asMarked, inlinePlain, lex } from '../../src/engine/rendering/markdown.ts';
import { boilerplateHits } from './boilerplate-detector.ts';
import { followUntil, type RestClient, type Tenant } from './optimize-app.ts';

export interface QualityTopic {
  topic: string;
  contract: 'article' | 'commercial_service';
}

/** The demo queries of web-archive/README.md; the plumbing ones are service pages. */
export const QUALITY_TOPICS: readonly QualityTopic[] = [
  ...[
    'emergency plumber',
    'emergency plumber austin',
    'water heater repair',
    'tankless water heater',
    'burst pipe repair',
  ].map((topic) => ({ topic, contract: 'commercial_service' as const })),
  ...[
    'best espresso machine under 500',
    'breville bambino plus review',
    'gaggia classic pro',
    'how to dial in espresso',
    'sourdough bread recipe',
    'sourdough starter not rising',
    'why is my sourdough dense',
    'sourdough discard',
    'how much do solar panels cost',
    'heat pump vs furnace',
    'heat pump minnesota',
    'solar battery worth it',
    'solar installer',
    'python asyncio tutorial',
    'asyncio gather vs taskgroup',
    'asyncio queue worker',
    'asyncio timeout',
  ].map((topic) => ({ topic, contract: 'article' as const })),
];

interface JobBody {
  job_id: string;
  status: string;
  error: string | null;
  error_code?: string | null;
}

interface Sentence {
  text: string;
  sourceUrl: string | null;
}

export interface QualityRow {
  topic: string;
  contract: string;
  status: string;
  /** error_code (or the error message) of a failed job. */
  error: string | null;
  words: number | null;
  sentences: number;
  /** Where the sentences and their sources were read: `draft.sentences`, or the [n] markers of draft.content. */
  sentenceSource: 'sentences' | 'markers' | 'none';
  /** Words of the sentences citing the largest source page over the draft's words (the writer's documented cap). */
  topShare: number | null;
  /** The same words over the words of the draft's quoted sentences only. */
  topQuotedShare: number | null;
  topSource: string | null;
  boilerplate: number;
  boilerplateKinds: Record<string, number>;
  boilerplateExamples: string[];
  duplicates: number;
  defaultBytes: number | null;
}

const shorten = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;
const words = (s: string) => s.replace(/\[\d+\]/g, ' ').match(WORD)?.length ?? 0;

/** GET returning the raw answer text (for its size) and its parsed body. */
async function getRaw(
  dispatcher: Agent,
  port: number,
  path: string,
  key: string | null,
  query: Record<string, string> = {},
) {
  const url = new URL(`http://127.0.0.1:${port}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const res = await request(url, {
    method: 'GET',
    dispatcher,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const text = await res.body.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: keep the text's size, no body.
  }
  return { status: res.statusCode, text, body };
}

type Schema = { enum?: unknown[]; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; type?: string | string[] };

function enumValues(s: Schema | undefined): string[] {
  if (!s) return [];
  return [
    ...(s.enum ?? []).filter((v): v is string => typeof v === 'string'),
    ...enumValues(s.items),
    ...(s.anyOf ?? []).flatMap(enumValues),
    ...(s.oneOf ?? []).flatMap(enumValues),
  ];
}

/**
 * How to ask the artifacts answer for the draft with its sentences, read from /openapi.json: the `include` query
 * parameter's values naming the draft or its sentences (comma-separated), `include=draft` when it lists none, or
 * nothing when the operation has no such parameter (the default answer is then the whole record).
 */
export async function artifactsInclude(dispatcher: Agent, port: number): Promise<Record<string, string>> {
  const r = await getRaw(dispatcher, port, '/openapi.json', null);
  const paths = ((r.body as { paths?: Record<string, Record<string, unknown>> } | null)?.paths ?? {}) as Record<
    string,
    Record<string, { parameters?: { name: string; in: string; schema?: Schema }[] }>
  >;
  const entry = Object.entries(paths).find(([p]) => /\/copywriter\/jobs\/\{[^}]+\}\/artifacts$/.test(p))?.[1];
  const include = entry?.get?.parameters?.find((p) => p.in === 'query' && p.name === 'include');
  if (!include) return {};
  const wanted = [...new Set(enumValues(include.schema))].filter((v) => /draft|sentence/i.test(v));
  return { include: wanted.length ? wanted.join(',') : 'draft' };
}

/**
 * The visible text of the page's prose (paragraphs, list items, quotes) before its Sources heading, read with marked;
 * headings, code, tables, HTML and notes set entirely in emphasis (`_Extractive draft: ..._`) are not prose.
 */
function proseBlocks(markdown: string): string[] {
  const out: string[] = [];
  const walk = (tokens: readonly Token[]): boolean => {
    for (const tok of tokens) {
      const t = asMarked(tok);
      if (t.type === 'heading' && /^(sources|references)$/i.test(inlinePlain(t.tokens).trim())) return false;
      if (t.type === 'paragraph' || (t.type === 'text' && t.tokens?.length)) {
        const inline = (t.tokens ?? []).filter((x) => x.raw.trim());
        if (inline.length === 1 && inline[0]!.type === 'em') continue;
        out.push(inlinePlain(t.tokens).replace(/\s+/g, ' '));
      } else if (t.type === 'list') {
        for (const item of t.items) if (!walk(item.tokens)) return false;
      } else if (t.type === 'blockquote' && !walk(t.tokens)) return false;
    }
    return true;
  };
  walk(lex(markdown));
  return out;
}

/** The draft's sentences with their source URLs: `draft.sentences` when given, else its [n] markers via `sources`. */
export function draftSentences(
  artifacts: Record<string, unknown> | null,
  split: (text: string) => string[],
): { sentences: Sentence[]; from: QualityRow['sentenceSource'] } {
  const draft = (artifacts?.draft ?? null) as Record<string, unknown> | null;
  const given = draft?.sentences;
  if (Array.isArray(given)) {
    return {
      from: 'sentences',
      sentences: given.map((s: Record<string, unknown>) => ({
        text: String(s.text ?? ''),
        sourceUrl: (s.sourceUrl ?? s.source_url ?? null) as string | null,
      })),
    };
  }
  const content =
    typeof draft?.content === 'string' ? draft.content : typeof draft?.markdown === 'string' ? draft.markdown : null;
  if (content === null) return { sentences: [], from: 'none' };
  const sources = (artifacts?.sources ?? []) as { id: number; url: string }[];
  const urlOf = (n: number) => sources.find((s) => s.id === n)?.url ?? sources[n - 1]?.url ?? null;
  const sentences: Sentence[] = [];
  for (const text of proseBlocks(content)) {
    for (const s of split(text)) {
      // Writer notes ("[research gap: ...]") are not draft text.
      if (/^\[(?!\d+\])/.test(s)) continue;
      const m = /\[(\d+)\]/.exec(s);
      sentences.push({ text: s, sourceUrl: m ? urlOf(Number(m[1])) : null });
    }
  }
  return { sentences, from: 'markers' };
}

const dupKey = (s: string) =>
  s
    .replace(/\[\d+\]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** The figures of one finished job's artifacts. */
export function measureDraft(
  artifacts: Record<string, unknown> | null,
  split: (text: string) => string[],
): Pick<
  QualityRow,
  | 'words'
  | 'sentences'
  | 'sentenceSource'
  | 'topShare'
  | 'topQuotedShare'
  | 'topSource'
  | 'boilerplate'
  | 'boilerplateKinds'
  | 'boilerplateExamples'
  | 'duplicates'
> {
  const draft = (artifacts?.draft ?? null) as Record<string, unknown> | null;
  const { sentences, from } = draftSentences(artifacts, split);
  const content = typeof draft?.content === 'string' ? draft.content : '';
  const total = sentences.reduce((n, s) => n + words(s.text), 0);
  const bySource = new Map<string, number>();
  for (const s of sentences)
    if (s.sourceUrl) bySource.set(s.sourceUrl, (bySource.get(s.sourceUrl) ?? 0) + words(s.text));
  const top = [...bySource].sort((a, b) => b[1] - a[1])[0];
  const kinds: Record<string, number> = {};
  const examples: string[] = [];
  let boilerplate = 0;
  for (const s of sentences) {
    const hits = boilerplateHits(s.text);
    if (!hits.length) continue;
    boilerplate++;
    for (const h of hits) kinds[h] = (kinds[h] ?? 0) + 1;
    if (examples.length < 3) examples.push(`[${hits.join(', ')}] ${s.text.slice(0, 110)}`);
  }
  const seen = new Set<string>();
  let duplicates = 0;
  for (const s of sentences) {
    const k = dupKey(s.text);
    if (!k) continue;
    if (seen.has(k)) duplicates++;
    else seen.add(k);
  }
  return {
    words: typeof draft?.word_count === 'number' ? draft.word_count : content ? words(content) : null,
    sentences: sentences.length,
    sentenceSource: from,
    topShare: top && typeof draft?.word_count === 'number' && draft.word_count > 0 ? top[1] / draft.word_count : null,
    topQuotedShare: top && total ? top[1] / total : top ? 0 : null,
    topSource: top ? new URL(top[0]).host.replace(/^www\./, '') : null,
    boilerplate,
    boilerplateKinds: kinds,
    boilerplateExamples: examples,
    duplicates,
  };
}

/**
 * Runs one auto job per topic (all at once, one key each) on an app with the offline writer and measures each
 * draft. A job that fails (e.g. `insufficient_research` from the relevance gate) is reported and the rest go on.
 */
export async function runQuality(opts: {
  rest: RestClient;
  port: number;
  tenant: Tenant;
  topics: readonly QualityTopic[];
  deadlineMs: number;
  split: (text: string) => string[];
}): Promise<QualityRow[]> {
  const { rest, port, tenant, topics, split } = opts;
  const dispatcher = new Agent({ pipelining: 0, connections: 64, headersTimeout: 120_000, bodyTimeout: 120_000 });
  try {
    const include = await artifactsInclude(dispatcher, port);
    const deadline = performance.now() + opts.deadlineMs;
    return await Promise.all(
      topics.map(async ({ topic, contract }, i): Promise<QualityRow> => {
        const key = tenant.keys[i]!;
        const row: QualityRow = {
          topic,
          contract,
          status: 'not started',
          error: null,
          words: null,
          sentences: 0,
          sentenceSource: 'none',
          topShare: null,
          topQuotedShare: null,
          topSource: null,
          boilerplate: 0,
          boilerplateKinds: {},
          boilerplateExamples: [],
          duplicates: 0,
          defaultBytes: null,
        };
        const created = await rest.call<JobBody>('POST', '/copywriter/jobs', key, {
          body: { client_id: tenant.clientId, topic, mode: 'auto', page_contract: contract },
          headers: { 'idempotency-key': `bench-quality-${i}` },
        });
        if (created.status !== 201) {
          return { ...row, status: `HTTP ${created.status}`, error: JSON.stringify(created.body).slice(0, 120) };
        }
        const id = created.body.job_id;
        let job: JobBody;
        try {
          job = (
            await followUntil<JobBody>(
              rest,
              `/copywriter/jobs/${id}`,
              key,
              (s) => s === 'completed' || s === 'failed',
              deadline,
            )
          ).body;
        } catch (err) {
          const still = err instanceof Error ? /still (\S+) at the deadline/.exec(err.message) : null;
          const why = still ? `still ${still[1]} after ${opts.deadlineMs / 1000} s` : String(err).slice(0, 80);
          return { ...row, status: 'unfinished', error: why };
        }
        row.status = job.status;
        if (job.status !== 'completed') row.error = job.error_code ?? shorten(job.error ?? 'unknown', 60);
        const path = `/api/agent/v1/copywriter/jobs/${id}/artifacts`;
        const plain = await getRaw(dispatcher, port, path, key);
        row.defaultBytes = plain.status === 200 ? Buffer.byteLength(plain.text) : null;
        if (job.status !== 'completed') return row;
        let full = plain;
        if (include.include) {
          const asked = await getRaw(dispatcher, port, path, key, include);
          if (asked.status === 200) full = asked;
        }
        return { ...row, ...measureDraft(full.body as Record<string, unknown> | null, split) };
      }),
    );
  } finally {
    await dispatcher.close();
  }
}
