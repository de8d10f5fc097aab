/**
 * The loopback web of the end-to-end Optimize bench: a target page and ten competitors (the Optimize tests' page
 * builders plus five more sections, so pages have ~1,000-1,400 words), each answered after its own injected
 * latency, and a SerpApi-format fake whose organic results point at the competitors.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { competitorSpec, renderPage, thoroughSpec, type PageSpec } from '../../test/optimize/helpers/pages.ts';
import { startFakeSerpApi, type FakeSerpApi } from '../../test/helpers/fake-providers/serpapi.ts';

export { KEYWORD } from '../../test/optimize/helpers/pages.ts';

type Section = PageSpec['sections'][number];

/** Sections the ranking pages of a real SERP also carry; each competitor has most of them. */
const MORE_SECTIONS: readonly Section[] = [
  {
    id: 'water-heater',
    heading: 'Water heater emergencies',
    paragraphs: [
      'A water heater that leaks from the bottom of the tank, makes popping noises or fills the tap with rusty water is close to failing. Turn off the power or the gas supply, close the cold water inlet valve above the tank and call an emergency plumber before the tank gives way.',
      'Tank water heaters usually last eight to twelve years. When a plumber finds a cracked tank or heavy corrosion, replacing the heater costs less over time than repeated repairs, and a tankless unit can be an option if the gas line and venting allow it.',
    ],
    list: [
      'Water pooling under the tank',
      'Rumbling or popping sounds',
      'Rusty or discolored hot water',
      'No hot water at all',
    ],
  },
  {
    id: 'frozen',
    heading: 'Frozen and burst pipes in winter',
    paragraphs: [
      'Pipes in exterior walls, attics and crawl spaces freeze first when the temperature drops below twenty degrees. A frozen pipe often bursts when it thaws, so keep the faucet open, warm the pipe slowly with a hair dryer and never use an open flame.',
      'If the pipe has already split, shut off the main valve right away. An emergency plumber replaces the damaged section, checks the other lines on the same wall and can add insulation or heat tape so the pipe does not freeze again next winter.',
    ],
  },
  {
    id: 'sewer',
    heading: 'Sewer backups and main line clogs',
    paragraphs: [
      'When several drains back up at once, or the toilet gurgles while the washing machine drains, the main sewer line is blocked. Tree roots, grease and flushed wipes are the usual causes, and a backup can push sewage into the lowest drain in the house.',
      'Stop using water until the line is cleared. A plumber runs a camera through the cleanout to find the blockage, then clears it with a cable machine or hydro jetting; a collapsed or root-filled line may need trenchless repair.',
    ],
    list: [
      'Several slow drains at once',
      'Gurgling toilets',
      'Sewage smell in the basement',
      'Water rising in the shower drain',
    ],
  },
  {
    id: 'insurance',
    heading: 'Water damage and your insurance claim',
    paragraphs: [
      'Most homeowners policies cover sudden water damage from a burst pipe but not damage from a slow leak that was ignored. Call your insurance company the same day, keep the receipts from the emergency plumber and take photos before anything is thrown away.',
      'Ask the plumber for a written report of the cause of the leak and the repair. Insurers often send an adjuster within a few days, and drying the walls and floors quickly with fans and a dehumidifier limits mold and the size of the claim.',
    ],
  },
  {
    id: 'licensing',
    heading: 'Licensing, insurance and warranties',
    paragraphs: [
      'A licensed master plumber has passed the state exam and carries liability insurance, which protects you if a repair floods the house. Unlicensed handymen may charge less, but their work can void your home warranty and fail a city inspection.',
      'Good plumbing companies guarantee their labor for at least a year and pass on the manufacturer warranty for parts such as water heaters, valves and faucets. Get the warranty terms in writing before you pay.',
    ],
  },
];

/** Latency of each competitor path (ms), in SERP order; the target's is separate. */
export const COMPETITOR_LATENCY_MS = [100, 150, 200, 250, 300, 350, 400, 500, 600, 800] as const;
export const TARGET_LATENCY_MS = 300;

export interface LatencyWeb {
  origin: string;
  allow: string;
  /** Path of the slowest page and its latency. */
  slowest: { path: string; ms: number };
  competitorPaths: string[];
  /** The URL of a path: competitor N on its own site (127.0.0.(N+1)), everything else on 127.0.0.1. */
  url(path: string): string;
  /** Page requests served so far. */
  requests(): number;
  /** Called as each page's response is written (after its latency). */
  onServed(fn: ((path: string) => void) | null): void;
  close(): Promise<void>;
}

/**
 * Starts the web: `/target` (any path starting with it) on 127.0.0.1 and `/c/1` ... `/c/10`, each competitor on its
 * own loopback address (a site of its own, as Optimize's per-site rules expect). One handler serves every address.
 */
export async function startLatencyWeb(): Promise<LatencyWeb> {
  const pages = new Map<string, { html: string; ms: number }>();
  let served = 0;
  let listener: ((path: string) => void) | null = null;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    served++;
    const path = (req.url ?? '/').split('?')[0]!;
    const page = path.startsWith('/target') ? pages.get('/target') : pages.get(path);
    const send = () => {
      const body = page?.html ?? '<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>';
      res.writeHead(page ? 200 : 404, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      listener?.(path);
    };
    if (page) setTimeout(send, page.ms);
    else send();
  };
  const listen = async (host: string) => {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return { server, host, port: (server.address() as AddressInfo).port };
  };
  const main = await listen('127.0.0.1');
  const sites = await Promise.all(COMPETITOR_LATENCY_MS.map((_, i) => listen(`127.0.0.${i + 2}`)));
  const all = [main, ...sites];
  const origin = `http://127.0.0.1:${main.port}`;
  const url = (path: string) => {
    const n = /^\/c\/(\d+)$/.exec(path);
    const site = n ? sites[Number(n[1]) - 1] : undefined;
    return site ? `http://${site.host}:${site.port}${path}` : `${origin}${path}`;
  };
  const thorough = thoroughSpec(origin, '/target');
  pages.set('/target', {
    html: renderPage({ ...thorough, sections: [...thorough.sections, ...MORE_SECTIONS] }),
    ms: TARGET_LATENCY_MS,
  });
  const competitorPaths: string[] = [];
  COMPETITOR_LATENCY_MS.forEach((ms, i) => {
    const path = `/c/${i + 1}`;
    const spec = competitorSpec(i, url(path).slice(0, -path.length));
    competitorPaths.push(path);
    pages.set(path, {
      html: renderPage({ ...spec, sections: [...spec.sections, ...MORE_SECTIONS.filter((_, k) => (k + i) % 5 !== 1)] }),
      ms,
    });
  });
  const slowestIndex = COMPETITOR_LATENCY_MS.indexOf(
    Math.max(...COMPETITOR_LATENCY_MS) as (typeof COMPETITOR_LATENCY_MS)[number],
  );
  return {
    origin,
    allow: all.map((x) => `${x.host}:${x.port}`).join(','),
    url,
    slowest: { path: competitorPaths[slowestIndex]!, ms: COMPETITOR_LATENCY_MS[slowestIndex]! },
    competitorPaths,
    requests: () => served,
    onServed: (fn) => void (listener = fn),
    close: async () => {
      await Promise.all(
        all.map(
          ({ server }) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

/** The HTML of every page (target first), for the in-process scoring bench. */
export async function pageHtml(web: LatencyWeb): Promise<{ url: string; html: string }[]> {
  const urls = [web.url('/target'), ...web.competitorPaths.map((p) => web.url(p))];
  return Promise.all(urls.map(async (url) => ({ url, html: await (await fetch(url)).text() })));
}

/** A SerpApi fake answering every Google query with the ten competitors, in order. */
export async function startSerp(web: LatencyWeb): Promise<{ fake: FakeSerpApi; env: Record<string, string> }> {
  const fake = await startFakeSerpApi({
    respond: (query) => ({
      search_metadata: { id: 'bench', status: 'Success' },
      search_parameters: { engine: 'google', q: query.q },
      organic_results: web.competitorPaths.map((p, n) => ({
        position: n + 1,
        title: `${query.q ?? ''} result ${n + 1}`,
        link: web.url(p),
        snippet: `About ${query.q ?? ''}.`,
      })),
    }),
  });
  return { fake, env: { SERP_PROVIDER: 'serpapi', SERPAPI_API_KEY: fake.apiKey, SERPAPI_BASE_URL: fake.baseUrl } };
}
