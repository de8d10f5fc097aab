import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastUserText, startFakeOpenAi, type ChatBody, type FakeOpenAi } from '../../helpers/fake-providers/openai.ts';

/**
 * The LLM writer's world for content tests: the loopback OpenAI fake answering like a model that follows the
 * writer's prompts (a schema-valid brief, and a Markdown page of the word count the prompt asks for), and a holding
 * proxy in front of it that can keep a request from reaching the provider, or keep the provider's answer from
 * reaching the server, so a test can kill a server process at either point.
 */

export const OPENAI_KEY = 'sk-fake-openai';
export const OPENAI_MODEL = 'gpt-4o-mini';

/** What the brief call answers: three sections drawing on the first researched sources. */
export function briefAnswer(topic: string) {
  return {
    outline: [
      {
        heading: `What ${topic} involves`,
        level: 2,
        points: ['What the service covers', 'When it is needed'],
        sources: [1, 2],
      },
      { heading: 'How the work is done', level: 2, points: ['The steps', 'What to expect'], sources: [2, 3] },
      { heading: 'Choosing a provider', level: 2, points: ['What to ask', 'Prices and guarantees'], sources: [1] },
    ],
    seo: {
      title: `${topic}: a practical guide`,
      metaDescription: `Everything to know about ${topic}, from the first call to the finished job.`,
      slug: topic.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      h1: `${topic[0]!.toUpperCase()}${topic.slice(1)}: a practical guide`,
      primaryKeyword: topic,
      secondaryKeywords: ['local service', 'repair costs', 'same day'],
    },
    faqs: [
      { question: 'How fast can someone come?', answer: 'Most requests get a visit the same day.', source: 1 },
      { question: 'What does it cost?', answer: 'The price depends on the repair and the time of day.', source: 2 },
      { question: 'Is the work guaranteed?', answer: 'Reputable providers guarantee their work.', source: null },
    ],
  };
}

const WORDS = ['the', 'team', 'checks', 'each', 'pipe', 'and', 'valve', 'before', 'work', 'starts'];

/** A Markdown page of `words` words as the writer counts them (headings included, citation markers not). */
export function pageOfWords(words: number): string {
  const heads = [
    '# A practical guide to the service',
    '## What the work involves',
    '## How the visit goes',
    '## Choosing well',
  ];
  const headWords = 6 + 3 * 3 + 2;
  const sentences = Math.max(3, Math.round((words - headWords) / 10));
  const sentence = (i: number) =>
    `${WORDS.map((w, j) => (j === 0 && i >= 0 ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ')} [${(i % 3) + 1}].`;
  const per = Math.ceil(sentences / 3);
  const out = [heads[0]!];
  for (let s = 0; s < 3; s++) {
    out.push(heads[s + 1]!);
    const n = Math.min(per, sentences - s * per);
    out.push(Array.from({ length: Math.max(0, n) }, (_, i) => sentence(s * per + i)).join(' '));
  }
  return out.join('\n\n');
}

/** Answers as a model following the writer's prompts would: brief JSON, or a page of the asked length. */
export function modelReply(body: ChatBody): string {
  if (body.response_format?.type === 'json_schema') {
    const topic = /on the topic "([^"]+)"/.exec(lastUserText(body))?.[1] ?? 'the topic';
    return JSON.stringify(briefAnswer(topic));
  }
  const target = /about (\d+) words \(between/.exec(lastUserText(body))?.[1];
  return pageOfWords(target ? Number(target) : 300);
}

/** The OpenAI fake answering with `modelReply`. */
export async function startModel(): Promise<FakeOpenAi> {
  const fake = await startFakeOpenAi({ apiKey: OPENAI_KEY, reply: modelReply });
  return fake;
}

/** Env for an app whose writer is the OpenAI-compatible adapter pointed at `baseUrl` (ending in /v1). */
export const llmEnv = (baseUrl: string): Record<string, string> => ({
  LLM_PROVIDER: 'openai',
  OPENAI_API_KEY: OPENAI_KEY,
  OPENAI_BASE_URL: baseUrl,
  OPENAI_MODEL,
});

/** The system prompt of a recorded chat request. */
export const systemOf = (b: ChatBody) => String(b.messages?.find((m) => m.role === 'system')?.content ?? '');

export type Hold = 'pass' | 'before' | 'after';

export interface HeldRequest {
  key: string | null;
  /** Where it is held: before the provider saw it, or after the provider answered. */
  at: 'before' | 'after';
}

export interface HoldingProxy {
  /** Pass as OPENAI_BASE_URL. */
  readonly baseUrl: string;
  /** Decides for each new request, by its Idempotency-Key: pass, hold before forwarding, or forward and hold the answer. */
  setPolicy(policy: (key: string | null) => Hold): void;
  readonly held: readonly HeldRequest[];
  /** Resolves once `n` requests are held that match `filter`. */
  waitForHeld(n: number, filter?: (h: HeldRequest) => boolean): Promise<void>;
  /** Forwards what is held before, delivers what is held after (to whoever is still listening). */
  release(): void;
  /** Forgets what is held: held-before requests never reach the provider; their connections are closed. */
  drop(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A proxy on 127.0.0.1 in front of `target` (an origin) that can hold requests on either side of the provider. */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  let policy: (key: string | null) => Hold = () => 'pass';
  const held: (HeldRequest & { go: () => void; res: ServerResponse })[] = [];
  const waiters: { n: number; filter: (h: HeldRequest) => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (held.filter(w.filter).length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };

  async function forward(req: IncomingMessage, body: Buffer) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    const res = await fetch(`${target}${req.url ?? '/'}`, {
      method: req.method,
      headers,
      body: body.length ? body : undefined,
    });
    return { status: res.status, type: res.headers.get('content-type') ?? 'application/json', text: await res.text() };
  }
  function send(res: ServerResponse, r: { status: number; type: string; text: string }) {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(r.status, { 'content-type': r.type, 'content-length': Buffer.byteLength(r.text) });
    res.end(r.text);
  }

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
      const how = policy(key);
      if (how === 'before') {
        held.push({
          key,
          at: 'before',
          res,
          go: () =>
            void forward(req, body).then(
              (r) => send(res, r),
              () => res.destroy(),
            ),
        });
        check();
        return;
      }
      const answer = await forward(req, body);
      if (how === 'after') {
        held.push({ key, at: 'after', res, go: () => send(res, answer) });
        check();
        return;
      }
      send(res, answer);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    setPolicy(p) {
      policy = p;
    },
    get held() {
      return held.map(({ key, at }) => ({ key, at }));
    },
    waitForHeld(n, filter = () => true) {
      return new Promise<void>((resolve) => {
        waiters.push({ n, filter, resolve });
        check();
      });
    },
    release() {
      for (const h of held.splice(0)) h.go();
    },
    drop() {
      for (const h of held.splice(0)) h.res.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
