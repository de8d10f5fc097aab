/**
 * A loopback OpenAI-compatible chat server for the content bench: POST /v1/chat/completions answers after a fixed
 * latency with what the LLM content writer asks for (src/engine/content/llm/prompts.ts): the brief as JSON matching
 * the structured-output schema, and drafts, revisions and length fixes as Markdown of the requested length with
 * [n] citations. It counts calls by kind and how many were in flight over time, so the bench can tell whether the
 * writer's limit (concurrency / latency) was reached.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type CallKind = 'brief' | 'draft' | 'revise' | 'fix' | 'other';

export interface FakeLlm {
  /** Pass as OPENAI_BASE_URL. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Calls answered since the last reset, by kind. */
  calls(): Record<CallKind, number>;
  total(): number;
  /** Most calls in flight at once, in-flight call-ms accumulated, and the mean arrival-to-answer ms, since the last reset. */
  inFlight(): { max: number; busyMs: number; meanLatencyMs: number };
  reset(): void;
  close(): Promise<void>;
}

interface ChatBody {
  messages?: Array<{ role?: string; content?: unknown }>;
  response_format?: { type?: string };
}

const WORD = /[\p{L}\p{N}]+(?:['’._-][\p{L}\p{N}]+)*/gu;
const words = (s: string) => (s.replace(/\[\d+\]/g, ' ').match(WORD) ?? []).length;

function kindOf(body: ChatBody, prompt: string): CallKind {
  if (body.response_format?.type === 'json_schema' || prompt.startsWith('# Task: the content brief')) return 'brief';
  if (prompt.startsWith('# Task: write the page')) return 'draft';
  if (prompt.startsWith('# Task: optimization pass')) return 'revise';
  if (prompt.startsWith('# Task: fix the length')) return 'fix';
  return 'other';
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The brief: about the number of sections the prompt asks for, SEO metadata and FAQs citing source 1. */
function brief(prompt: string): string {
  const topic = /the topic "([^"]+)"/.exec(prompt)?.[1] ?? 'the topic';
  const sections = Number(/about (\d+) sections/.exec(prompt)?.[1] ?? 5);
  const aspects = [
    'What it is',
    'How it works',
    'What it costs',
    'How to choose',
    'Common mistakes',
    'Step by step',
    'Tools you need',
    'Troubleshooting',
    'Safety',
    'Alternatives',
    'When to get help',
    'Maintenance',
    'Examples',
    'Checklist',
  ];
  return JSON.stringify({
    outline: Array.from({ length: sections }, (_, i) => ({
      heading: `${aspects[i % aspects.length]}: ${topic}`,
      level: 2,
      points: [
        `Explain ${aspects[i % aspects.length]!.toLowerCase()} for ${topic}`,
        `Give a practical example about ${topic}`,
      ],
      sources: [1 + (i % 2)],
    })),
    seo: {
      title: `${cap(topic)}: a practical guide`,
      metaDescription: `Everything you need to know about ${topic}: how it works, what it costs and how to get it right.`,
      slug: topic.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      h1: `${cap(topic)}: the complete guide`,
      primaryKeyword: topic,
      secondaryKeywords: [`${topic} cost`, `${topic} guide`, `best ${topic}`],
    },
    faqs: [1, 2, 3].map((n) => ({
      question: `What should I know about ${topic} (${n})?`,
      answer: `Start with the basics of ${topic} and check the sources before you decide.`,
      source: 1,
    })),
  });
}

const SENTENCES = [
  (t: string) => `Most people who look into ${t} want a clear answer they can act on the same day [1].`,
  (_t: string) => `The first thing to check is whether the basic setup matches what the guides recommend [2].`,
  (_t: string) => `Small differences in preparation change the result more than most beginners expect.`,
  (t: string) => `Experienced practitioners of ${t} keep notes, compare results and adjust one variable at a time [1].`,
  (_t: string) =>
    `Prices and timings vary by region, so treat every figure here as a starting point rather than a promise [2].`,
  (_t: string) => `A short checklist helps you avoid the mistakes that cost the most time and money.`,
  (_t: string) => `When something goes wrong, go back to the last step that worked and repeat it carefully [1].`,
  (t: string) => `Good results with ${t} come from patience, the right tools and a little practice.`,
];

/** Markdown of about `target` words: H1, introduction, the outline's sections, an FAQ section. */
function page(prompt: string): string {
  const target = Number(/Length: about (\d+) words/.exec(prompt)?.[1] ?? 800);
  const topic = /on "([^"]+)"/.exec(prompt)?.[1] ?? /the topic "([^"]+)"/.exec(prompt)?.[1] ?? 'this topic';
  const h1 = /^H1: (.+)$/m.exec(prompt)?.[1] ?? /^# (.+)$/m.exec(prompt)?.[1] ?? cap(topic);
  const outline = /^Outline:\n([\s\S]*?)\nFAQs:/m.exec(prompt)?.[1] ?? '';
  const headings = [...outline.matchAll(/^(#{2,3}) (.+?)(?: \[sources: [^\]]*\])?$/gm)].map((m) => `${m[1]} ${m[2]}`);
  if (headings.length === 0)
    headings.push(`## About ${topic}`, `## How to get started with ${topic}`, `## Tips for ${topic}`);
  const faq = [
    '## Frequently asked questions',
    `### Is ${topic} worth it?`,
    `It usually is, once you know what to expect [1].`,
  ];
  const fixed = [`# ${h1}`, ...headings, ...faq];
  let budget = target - fixed.reduce((a, s) => a + words(s), 0);
  const blocks: string[][] = headings.map(() => []);
  const intro: string[] = [];
  let k = 0;
  // Sentences go round-robin into the introduction and the sections until the budget is spent.
  while (budget > 0) {
    const sentence = SENTENCES[k % SENTENCES.length]!(topic);
    budget -= words(sentence);
    const slot = k % (headings.length + 1);
    (slot === 0 ? intro : blocks[slot - 1]!).push(sentence);
    k++;
  }
  return [`# ${h1}`, intro.join(' '), ...headings.flatMap((h, i) => [h, blocks[i]!.join(' ')]), ...faq]
    .filter(Boolean)
    .join('\n\n');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the fake on 127.0.0.1; every answer is sent `latencyMs` after its request arrived. */
export async function startFakeLlm(options: { latencyMs: number; apiKey?: string }): Promise<FakeLlm> {
  const apiKey = options.apiKey ?? 'bench-llm-key';
  let counts: Record<CallKind, number> = { brief: 0, draft: 0, revise: 0, fix: 0, other: 0 };
  let current = 0;
  let max = 0;
  let busyMs = 0;
  let latencySum = 0;
  let since = performance.now();
  const account = () => {
    const now = performance.now();
    busyMs += current * (now - since);
    since = now;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const arrived = performance.now();
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
          }),
        );
        return;
      }
      account();
      current++;
      max = Math.max(max, current);
      const body = JSON.parse(raw) as ChatBody;
      const prompt = String([...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '');
      const kind = kindOf(body, prompt);
      const content = kind === 'brief' ? brief(prompt) : kind === 'other' ? 'OK' : page(prompt);
      const text = JSON.stringify({
        id: `chatcmpl-bench-${arrived.toFixed(0)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'bench-model',
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }],
        usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: Math.ceil(content.length / 4) },
      });
      setTimeout(
        () => {
          account();
          current--;
          counts[kind]++;
          latencySum += performance.now() - arrived;
          res
            .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
            .end(text);
        },
        Math.max(0, options.latencyMs - (performance.now() - arrived)),
      );
    })().catch((err: unknown) => {
      if (!res.headersSent)
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: String(err), type: 'server_error' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    calls: () => ({ ...counts }),
    total: () => Object.values(counts).reduce((a, b) => a + b, 0),
    inFlight: () => {
      account();
      const n = Object.values(counts).reduce((a, b) => a + b, 0);
      return { max, busyMs, meanLatencyMs: n ? latencySum / n : 0 };
    },
    reset() {
      counts = { brief: 0, draft: 0, revise: 0, fix: 0, other: 0 };
      max = current;
      busyMs = 0;
      latencySum = 0;
      since = performance.now();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
