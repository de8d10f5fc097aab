import { defineFakeApi, startFakeServer, type FakeServer, type RecordedRequest, type Reply } from './server.ts';

/**
 * A loopback DataForSEO v3 (Live SERP endpoints): HTTP Basic auth, the one-task POST array, two-level status codes,
 * recorded-style `items` for Google organic (organic, video, ai_overview when `load_async_ai_overview`) and YouTube.
 * Dedupes on the task's `tag`, which the adapters fill with the derived idempotency key.
 */

export const DFS_GOOGLE = '/v3/serp/google/organic/live/advanced';
export const DFS_YOUTUBE = '/v3/serp/youtube/organic/live/advanced';

export type DfsTask = Record<string, unknown>;
export type DfsItemsFn = (task: DfsTask, path: string) => unknown[];
export type DfsStatusFn = (task: DfsTask, path: string) => { status_code: number; status_message: string } | null;

export interface FakeDataForSeoOptions {
  login?: string;
  password?: string;
  items?: DfsItemsFn;
  taskStatus?: DfsStatusFn;
}

export interface FakeDataForSeo extends FakeServer {
  /** Pass as DATAFORSEO_BASE_URL. */
  readonly baseUrl: string;
  readonly login: string;
  readonly password: string;
  /** Tasks received, in order (the single element of each POST array). */
  tasks(): DfsTask[];
  setItems(fn: DfsItemsFn): void;
  setTaskStatus(fn: DfsStatusFn | null): void;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Google organic items as the Live Advanced endpoint returns them, echoing the keyword. */
export function googleItems(task: DfsTask): unknown[] {
  const kw = String(task.keyword ?? '');
  const s = slug(kw);
  const organic = (n: number, abs: number, domain: string) => ({
    type: 'organic',
    rank_group: n,
    rank_absolute: abs,
    position: 'left',
    xpath: `/html[1]/body[1]/div[${abs}]`,
    domain,
    title: `${kw} – guide ${n} | ${domain}`,
    url: `https://${domain}/${s}-${n}`,
    breadcrumb: `https://${domain} › ${s}`,
    description: `Everything about ${kw}, part ${n}.`,
    is_featured_snippet: false,
  });
  const items: unknown[] = [
    organic(1, 2, 'www.alpha.example'),
    {
      type: 'video',
      rank_group: 1,
      rank_absolute: 3,
      position: 'left',
      items: [
        {
          type: 'video_element',
          source: 'YouTube',
          title: `${kw} explained`,
          timestamp: '2025-01-10 00:00:00 +00:00',
          url: `https://www.youtube.com/watch?v=${s.slice(0, 6)}01`,
        },
        {
          type: 'video_element',
          source: 'Vimeo',
          title: `${kw} in 5 minutes`,
          timestamp: null,
          url: `https://vimeo.com/${s.length}02`,
        },
      ],
    },
    organic(2, 4, 'beta.example'),
    {
      type: 'people_also_ask',
      rank_group: 1,
      rank_absolute: 5,
      items: [{ type: 'people_also_ask_element', title: `What is ${kw}?` }],
    },
    organic(3, 6, 'gamma.example'),
  ];
  if (task.load_async_ai_overview === true) {
    items.unshift({
      type: 'ai_overview',
      rank_group: 1,
      rank_absolute: 1,
      position: 'left',
      asynchronous_ai_overview: true,
      markdown: `**${kw}** is covered by several guides.\n\n- Start with the basics.`,
      items: [
        {
          type: 'ai_overview_element',
          title: `About ${kw}`,
          text: `${kw} is covered by several guides.`,
          references: [
            {
              type: 'ai_overview_reference',
              source: 'Alpha',
              domain: 'www.alpha.example',
              url: `https://www.alpha.example/${s}-1`,
              title: `${kw} – guide 1`,
            },
          ],
        },
      ],
      references: [
        {
          type: 'ai_overview_reference',
          source: 'Delta Docs',
          domain: 'delta.example',
          url: `https://delta.example/${s}`,
          title: null,
        },
        {
          type: 'ai_overview_reference',
          source: 'Alpha',
          domain: 'www.alpha.example',
          url: `https://www.alpha.example/${s}-1`,
          title: `${kw} – guide 1`,
        },
      ],
    });
  }
  return items;
}

/** YouTube organic items (`youtube_video`), echoing the keyword. */
export function youtubeItems(task: DfsTask): unknown[] {
  const kw = String(task.keyword ?? '');
  const s = slug(kw);
  return [1, 2, 3].map((n) => ({
    type: 'youtube_video',
    rank_group: n,
    rank_absolute: n,
    video_id: `${s.slice(0, 8)}${n}`,
    title: `${kw} video ${n}`,
    url: `https://www.youtube.com/watch?v=${s.slice(0, 8)}${n}`,
    channel_name: `Channel ${n}`,
    description: `A video about ${kw} (${n}).`,
    views_count: 1000 * n,
  }));
}

const defaultItems: DfsItemsFn = (task, path) => (path === DFS_YOUTUBE ? youtubeItems(task) : googleItems(task));

function envelope(status: number, message: string, tasks: unknown[]): unknown {
  return {
    version: '0.1.20250526',
    status_code: status,
    status_message: message,
    time: '1.2 sec.',
    cost: 0,
    tasks_count: tasks.length,
    tasks_error: 0,
    tasks,
  };
}

/** Starts a fake DataForSEO on 127.0.0.1. */
export async function startFakeDataForSeo(options: FakeDataForSeoOptions = {}): Promise<FakeDataForSeo> {
  const login = options.login ?? 'fake-login@example.com';
  const password = options.password ?? 'fake-password';
  let items = options.items ?? defaultItems;
  let taskStatus: DfsStatusFn | null = options.taskStatus ?? null;
  const expectedAuth = `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

  const taskOf = (req: RecordedRequest): DfsTask | null =>
    Array.isArray(req.body) && req.body.length === 1 && req.body[0] && typeof req.body[0] === 'object'
      ? (req.body[0] as DfsTask)
      : null;
  const taskError = (task: DfsTask, code: number, message: string): Reply => ({
    status: 200,
    body: envelope(20000, 'Ok.', [
      {
        id: 'task-error',
        status_code: code,
        status_message: message,
        cost: 0,
        result_count: 0,
        data: task,
        result: null,
      },
    ]),
  });

  const server = await startFakeServer({
    keyOf: (req) => {
      const tag = taskOf(req)?.tag;
      return typeof tag === 'string' ? tag : null;
    },
    check(req) {
      if (req.headers.authorization !== expectedAuth) {
        return {
          status: 401,
          body: { status_code: 40100, status_message: 'You are not authorized to access this resource.' },
        };
      }
      if (req.method !== 'POST' || (req.path !== DFS_GOOGLE && req.path !== DFS_YOUTUBE)) {
        return { status: 404, body: { status_code: 40400, status_message: 'Not Found.' } };
      }
      if (!req.headers['content-type']?.startsWith('application/json'))
        return { status: 200, body: envelope(40501, 'Invalid Field: content type.', []) };
      const task = taskOf(req);
      if (!task) return { status: 200, body: envelope(40000, 'You can set only one task at a time.', []) };
      if (typeof task.keyword !== 'string' || !task.keyword) return taskError(task, 40501, "Invalid Field: 'keyword'.");
      if (
        task.location_name === undefined &&
        task.location_code === undefined &&
        task.location_coordinate === undefined
      ) {
        return taskError(task, 40501, "Invalid Field: 'location_name'.");
      }
      if (task.language_code === undefined && task.language_name === undefined)
        return taskError(task, 40501, "Invalid Field: 'language_code'.");
      return null;
    },
    answer(req) {
      const task = taskOf(req) as DfsTask;
      const status = taskStatus?.(task, req.path);
      if (status) return taskError(task, status.status_code, status.status_message);
      const list = items(task, req.path);
      const se = req.path === DFS_YOUTUBE ? 'youtube' : 'google';
      return {
        status: 200,
        body: envelope(20000, 'Ok.', [
          {
            id: `07101010-0000-0000-0000-${String(server.runs + 1).padStart(12, '0')}`,
            status_code: 20000,
            status_message: 'Ok.',
            time: '1.1 sec.',
            cost: 0.002,
            result_count: 1,
            path: req.path.split('/').filter(Boolean),
            data: { api: 'serp', function: 'live', se, se_type: 'organic', ...task },
            result: [
              {
                keyword: task.keyword,
                type: 'organic',
                se_domain: se === 'google' ? 'google.com' : 'youtube.com',
                location_code: task.location_code ?? 2840,
                language_code: task.language_code,
                check_url: `https://www.${se}.com/search?q=${encodeURIComponent(String(task.keyword))}`,
                datetime: '2025-05-26 10:00:00 +00:00',
                item_types: [...new Set(list.map((i) => (i as { type?: string }).type))],
                items_count: list.length,
                items: list,
              },
            ],
          },
        ]),
      };
    },
    faultBody: (status) =>
      status === 429
        ? { status_code: 40202, status_message: 'Rate-limit per minute exceeded.' }
        : { status_code: 50000, status_message: 'Internal Error.' },
  });

  return Object.assign(server, {
    baseUrl: server.origin,
    login,
    password,
    tasks: () => server.requests.map(taskOf).filter((t): t is DfsTask => t !== null),
    setItems(fn: DfsItemsFn) {
      items = fn;
    },
    setTaskStatus(fn: DfsStatusFn | null) {
      taskStatus = fn;
    },
  });
}

/** This fake with its default options, as the settings of DataForSEO's two providers (see `FakeApi`). */
export const fakeApi = defineFakeApi(startFakeDataForSeo, (f) => ({
  DATAFORSEO_LOGIN: f.login,
  DATAFORSEO_PASSWORD: f.password,
  DATAFORSEO_BASE_URL: f.baseUrl,
}));
