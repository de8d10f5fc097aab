/**
 * Worker threads for the costly part of a search-index build (page-text.ts: decoding and main-text extraction), so a
 * build uses every core it is given and the server's event loop stays free to answer while it runs.
 *
 * The worker's entry module is named by the composition root (it decides the extractor, which a function cannot be
 * sent to a thread to say): it calls `servePageTexts` with the same extractor the server would use in-thread. A pool
 * that cannot start any worker answers null, and the caller indexes in its own thread; a page whose worker died
 * rejects, and the caller indexes that page in its own thread. Either way the index is the same.
 */
import { Worker, parentPort } from 'node:worker_threads';
import type { ExtractText } from './fallback-extract.ts';
import { pageText } from './page-text.ts';
import type { PageInput, PageText, PageTexts } from './page-text.ts';
import { createTermizer } from './terms.ts';

/** A worker entry module, or the code of a worker that loads one (a TypeScript module needs a loader first). */
export type WorkerEntry = { url: URL } | { code: string };

export interface PageTextWorkers {
  /** Workers that started. */
  readonly threads: number;
  /** Pages answered by a worker so far. */
  readonly answered: number;
  /** The text of a page, from a worker; rejects when that worker stopped. */
  text: PageTexts;
  /** Stops every worker; pages still waiting reject. */
  close(): Promise<void>;
}

export interface StartPageTextWorkersOptions {
  entry: WorkerEntry;
  threads: number;
  /** Why a worker did not start or stopped (the build goes on without it). */
  onProblem?: (err: unknown) => void;
}

/** Pages handed to one worker at once: the second waits in its port, so the worker never idles between messages. */
const PAGES_PER_WORKER = 2;

interface Request {
  id: number;
  page: PageInput;
}
type Answer = { ready: true } | { id: number; text: PageText } | { id: number; error: string };

interface Pending {
  request: Request;
  resolve: (text: PageText) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  inFlight: Map<number, Pending>;
  alive: boolean;
}

/** Starts `threads` workers from `entry`; answers null when none of them starts. */
export async function startPageTextWorkers(options: StartPageTextWorkersOptions): Promise<PageTextWorkers | null> {
  const threads: Thread[] = [];
  const queue: Pending[] = [];
  let nextId = 0;
  let answered = 0;
  let closed = false;

  const pump = () => {
    while (queue.length > 0) {
      let best: Thread | undefined;
      for (const t of threads) if (t.alive && (!best || t.inFlight.size < best.inFlight.size)) best = t;
      if (!best) {
        for (const p of queue.splice(0)) p.reject(new Error('no page-text worker is running'));
        return;
      }
      if (best.inFlight.size >= PAGES_PER_WORKER) return;
      const pending = queue.shift()!;
      best.inFlight.set(pending.request.id, pending);
      best.worker.postMessage(pending.request);
    }
  };

  const stop = (thread: Thread, err: Error) => {
    if (!thread.alive) return;
    thread.alive = false;
    for (const p of thread.inFlight.values()) p.reject(err);
    thread.inFlight.clear();
    void thread.worker.terminate();
    pump();
  };

  const started = await Promise.all(
    Array.from({ length: Math.max(1, options.threads) }, () => {
      let worker: Worker;
      try {
        const entry = options.entry;
        // Not the parent's stdout: nothing of a worker may reach the MCP stdio stream.
        worker =
          'code' in entry
            ? new Worker(entry.code, { eval: true, stdout: true })
            : new Worker(entry.url, { stdout: true });
      } catch (err) {
        options.onProblem?.(err);
        return Promise.resolve(null);
      }
      const thread: Thread = { worker, inFlight: new Map(), alive: true };
      worker.stdout.resume();
      return new Promise<Thread | null>((resolve) => {
        worker.on('message', (answer: Answer) => {
          if ('ready' in answer) return resolve(thread);
          const pending = thread.inFlight.get(answer.id);
          if (!pending) return;
          thread.inFlight.delete(answer.id);
          if ('text' in answer) {
            answered++;
            pending.resolve(answer.text);
          } else pending.reject(new Error(answer.error));
          pump();
        });
        worker.on('error', (err) => {
          options.onProblem?.(err);
          stop(thread, err);
          resolve(null);
        });
        worker.on('exit', (code) => {
          if (!closed && thread.alive) options.onProblem?.(new Error(`a page-text worker exited with code ${code}`));
          stop(thread, new Error(`the page-text worker exited with code ${code}`));
          resolve(null);
        });
      });
    }),
  );
  for (const t of started) if (t?.alive) threads.push(t);
  if (threads.length === 0) return null;

  return {
    threads: threads.length,
    get answered() {
      return answered;
    },
    text(page) {
      if (closed) return Promise.reject(new Error('the page-text workers are closed'));
      return new Promise<PageText>((resolve, reject) => {
        queue.push({ request: { id: nextId++, page }, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new Error('the page-text workers are closed'));
      await Promise.all(
        threads.map(async (t) => {
          stop(t, new Error('the page-text workers are closed'));
          await t.worker.terminate();
        }),
      );
    },
  };
}

/** The worker side: answers each page's text with `extractText`, after saying it is ready. */
export function servePageTexts(extractText: ExtractText): void {
  const port = parentPort;
  if (!port) throw new Error('servePageTexts runs in a worker thread');
  const termize = createTermizer();
  port.on('message', (request: Request) => {
    let answer: Answer;
    try {
      answer = { id: request.id, text: pageText(request.page, extractText, termize) };
    } catch (err) {
      answer = { id: request.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(answer);
  });
  port.postMessage({ ready: true } satisfies Answer);
}
