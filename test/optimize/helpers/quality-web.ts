import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { startPageServer, type PageServer } from '../../helpers/canary.ts';
import { startFakeSerpApi, type FakeSerpApi } from '../../helpers/fake-providers/serpapi.ts';
import { renderPage, type PageSpec } from './pages.ts';

/**
 * A small loopback web about one topic, "descale espresso machine", for the Optimize quality properties: six sites
 * whose guides rank for it (one of them with three guides), the scored page's own site with two more pages (one of
 * them far too long), a cocktail site whose page shares only the word "espresso" with the keyword, and a spare
 * competitor that only competitor_urls names. Each site is its own 127.0.0.x host, so the same-site and per-site rules
 * see distinct sites. The pages carry what a competitor model must not recommend: site names (og:site_name, the
 * title suffix, and the text), numbers ("2024"), units ("grams", "inches"), single letters ("195 F"), and a two-word
 * city ("Round Rock") whose words must stay together.
 */

export const TOPIC = 'descale espresso machine';

export const SITES = {
  own: { host: '127.0.0.40', name: 'Brewpoint Guides' },
  a: { host: '127.0.0.41', name: 'Bellweather Roasters' },
  b: { host: '127.0.0.42', name: 'Kettlebrook Coffee' },
  c: { host: '127.0.0.43', name: 'Quillon Home Barista' },
  d: { host: '127.0.0.44', name: 'Larkspur Brew Lab' },
  e: { host: '127.0.0.45', name: 'Oakhurst Coffee Works' },
  f: { host: '127.0.0.46', name: 'Marlowe Bean Co' },
  bar: { host: '127.0.0.50', name: 'Nightcap Cocktails' },
} as const;
export type SiteKey = keyof typeof SITES;

/** The distinctive word of each site name: nothing recommended may contain one. */
export const BRAND_WORDS = [
  'Brewpoint',
  'Bellweather',
  'Kettlebrook',
  'Quillon',
  'Larkspur',
  'Oakhurst',
  'Marlowe',
  'Nightcap',
];

type Section = PageSpec['sections'][number];
type SectionId = 'why' | 'often' | 'supplies' | 'steps' | 'vinegar' | 'signs' | 'after' | 'water';

/** What the guides that rank agree on. */
const BANK: Record<SectionId, Section> = {
  why: {
    id: 'why',
    heading: 'Why descaling matters',
    paragraphs: [
      'Tap water carries dissolved minerals, mostly calcium and magnesium. Every time your espresso machine heats water, a little of that mineral content is left behind as limescale. Scale builds up inside the boiler, on the heating element and in the narrow pipes that feed the group head.',
      'A layer of limescale insulates the heating element, so the machine takes longer to reach brewing temperature and struggles to hold it. Scale also narrows the water path, which lowers pump pressure and slows the flow through the coffee puck. The result is sour, thin espresso and, in the worst case, a blocked solenoid valve or a burnt-out heating element that costs far more than a bottle of descaler.',
    ],
  },
  often: {
    id: 'often',
    heading: 'How often should you descale?',
    paragraphs: [
      'Most manufacturers recommend that you descale every two to three months, but the right schedule depends on your water hardness and how many shots you pull each day. Hard water above 120 ppm can leave visible scale in a few weeks, while soft or filtered water may only need a descale twice a year.',
      'A cheap water hardness test strip tells you where you stand in a minute. In a 2024 survey of home baristas, most owners descaled less often than their manual asked. If you use a water filter in the tank, replace the cartridge on schedule, because a spent filter no longer removes minerals.',
    ],
  },
  supplies: {
    id: 'supplies',
    heading: 'What you need to descale',
    paragraphs: [
      'You need a descaling solution, a large container that fits under the group head and the steam wand, a clean cloth and fresh water. Commercial descalers are based on citric acid or lactic acid and are safe for brass and copper boilers.',
      'If you mix your own, dissolve about 30 grams of citric acid in a liter of warm water. Use a container at least 6 inches tall so the solution does not splash over the drip tray.',
    ],
    list: [
      'Descaling solution or citric acid',
      'A container at least 6 inches tall',
      'A clean cloth',
      'Fresh water for rinsing',
    ],
  },
  steps: {
    id: 'steps',
    heading: 'How to descale an espresso machine step by step',
    paragraphs: [
      'Start with a cool, switched-off machine and an empty water tank. Mix the descaling solution in the tank according to the instructions on the bottle. Turn the machine on and let it heat up, then run about half of the solution through the group head and a quarter through the steam wand, a cup at a time.',
      'Switch the machine off and let the descaler sit for 20 minutes so it can dissolve the scale inside the boiler. Run the rest of the solution through, then rinse the tank and refill it with fresh water. Flush at least two full tanks of clean water through the group head and the steam wand so no acid is left in the system.',
    ],
    list: [
      'Empty and rinse the water tank',
      'Mix the descaling solution',
      'Run the solution through the group head and steam wand',
      'Let it sit for 20 minutes',
      'Flush two tanks of fresh water',
    ],
  },
  vinegar: {
    id: 'vinegar',
    heading: 'Vinegar or citric acid?',
    paragraphs: [
      'Vinegar is cheap and it does dissolve limescale, but most espresso machine makers advise against it. Acetic acid is harsh on the rubber gaskets, O-rings and seals inside the machine, and the smell can linger in the boiler for several rinse cycles.',
      'Citric acid works just as well on calcium deposits, rinses out cleanly and leaves no taste in the coffee. A dedicated descaler also contains corrosion inhibitors that protect the brass and copper parts. If your warranty names a specific descaling product, use it, because damage from the wrong chemical may not be covered.',
    ],
  },
  signs: {
    id: 'signs',
    heading: 'Signs your espresso machine needs descaling',
    paragraphs: [
      'The machine tells you when scale has built up. Shots pull slower even though you have not changed the grind, the steam wand sputters and loses pressure, and the pump sounds louder than usual.',
      'The water may come out of the group head below 195 F, so the espresso tastes sour. Some machines show a descale light after a set number of cycles. White flakes in the drip tray or chalky deposits around the shower screen are a sure sign that the boiler is scaled.',
    ],
    list: ['Slow shots', 'A sputtering steam wand', 'A louder pump', 'Sour espresso', 'White flakes in the drip tray'],
  },
  after: {
    id: 'after',
    heading: 'After descaling: rinse and clean',
    paragraphs: [
      'Once the descaling cycle is done, remove the shower screen and the gasket and scrub them with a brush. Backflush the group head with a blind basket and a little espresso machine cleaner to remove coffee oils. Wipe the steam wand and purge it, soak the portafilter and the baskets, and empty the drip tray.',
      'Pull one or two shots and throw them away before you drink the first one, so any trace of descaler is gone. Write the date down, or set a reminder on your phone, so you remember when the next descale is due.',
    ],
  },
  water: {
    id: 'water',
    heading: 'Hard water and where you live',
    paragraphs: [
      'Water hardness varies a lot from one city to the next. Central Texas is known for very hard water: Round Rock, Austin and Georgetown all supply water above 150 ppm, and owners there often need to descale every month. In Round Rock the repair benches see more scaled boilers than anywhere else in the region.',
      'Soft-water cities such as Seattle and Portland are much kinder to an espresso machine. Check the annual report of your water supplier or test the water at home, then pick a descaling schedule that matches it.',
    ],
  },
};

const sections = (...ids: SectionId[]) => ids.map((id) => BANK[id]);

interface PageDef {
  site: SiteKey;
  path: string;
  spec: PageSpec;
}

/** A ranking guide: the site's name in the title suffix, the intro and a closing line of its own. */
function guide(
  site: SiteKey,
  path: string,
  title: string,
  h1: string,
  intro: string,
  ids: SectionId[],
  extra: string,
): PageDef {
  const name = SITES[site].name;
  return {
    site,
    path,
    spec: {
      title: `${title} | ${name}`,
      description: `${h1}: what you need, how often to do it and the steps, from ${name}.`,
      h1,
      intro: [intro],
      sections: sections(...ids),
      extra,
    },
  };
}

/** Machine types for the over-long page, each with a paragraph of its own. */
const MACHINE_TYPES = [
  ['single boiler machine', 'one small boiler that both brews and steams, so scale there hurts both jobs'],
  [
    'dual boiler machine',
    'a brew boiler and a steam boiler, and each of them needs the descaling solution to reach it',
  ],
  ['heat exchanger machine', 'a steam boiler with a copper tube running through it, and that narrow tube clogs first'],
  ['thermoblock machine', 'a block of aluminium with a thin channel that heats water on demand and scales quickly'],
  ['lever machine', 'a spring lever and an open boiler that is easy to reach and easy to rinse'],
  ['super-automatic machine', 'an automatic descale program that takes about 40 minutes and must not be interrupted'],
  ['pod machine', 'a tiny heater and a short water path, so a quick monthly descale is usually enough'],
  ['prosumer machine', 'a rotary pump and a large boiler that takes several tanks of water to rinse'],
  ['commercial machine', 'a plumbed-in water line and a softener that the technician services twice a year'],
  ['manual machine', 'a hand pump and no boiler at all, so only the kettle you use needs descaling'],
] as const;

function longHandbook(): PageDef {
  const notes = MACHINE_TYPES.flatMap(([type, how]) => [
    `A ${type} has ${how}. Before you descale a ${type}, read the manual for the model, because the makers disagree about how much descaling solution to use and how long to let it sit.`,
    `Owners of a ${type} often ask whether the descale can wait. It can wait a few weeks, but scale does not go away on its own, and every week of delay makes the next descaling cycle slower. Keep the tank full of filtered water and the ${type} will need less care.`,
  ]);
  return {
    site: 'own',
    path: '/guides/espresso-machine-care-handbook',
    spec: {
      title: 'The Espresso Machine Descaling Handbook',
      description: 'Everything about descaling an espresso machine, model by model, with schedules and steps.',
      h1: 'The Complete Handbook to Descale an Espresso Machine',
      intro: [
        'This handbook explains how to descale an espresso machine of every type, from a pod machine to a dual boiler, with the schedule, the supplies and the steps for each.',
      ],
      sections: [
        ...sections('why', 'often', 'supplies', 'steps', 'vinegar', 'signs', 'after'),
        { id: 'models', heading: 'Descaling notes for every type of machine', paragraphs: notes },
        {
          id: 'more',
          heading: 'More descaling notes for every type of machine',
          paragraphs: notes.map((p) => `In short: ${p}`),
        },
      ],
      lang: true,
    },
  };
}

export const PAGES = {
  /** The scored page: a decent guide without the supplies, vinegar, signs and hard-water sections. */
  target: {
    site: 'own',
    path: '/guides/descale-espresso-machine',
    spec: {
      title: 'Descaling Your Espresso Machine: A Step-by-Step Guide',
      description: 'When and how to descale your espresso machine at home, step by step, and what to do afterwards.',
      h1: 'Descaling Your Espresso Machine',
      intro: [
        'Scale is the most common reason an espresso machine loses temperature and pressure. This guide explains when to descale your espresso machine, how to do it step by step and how to clean it afterwards.',
      ],
      sections: sections('why', 'often', 'steps', 'after'),
    },
  },
  own1: {
    site: 'own',
    path: '/guides/espresso-descaling-schedule',
    spec: {
      title: 'How Often to Descale an Espresso Machine',
      h1: 'How Often to Descale an Espresso Machine',
      intro: ['The right schedule to descale an espresso machine depends on your water and how much coffee you make.'],
      sections: sections('often', 'signs'),
    },
  },
  own2: longHandbook(),
  a1: guide(
    'a',
    '/guides/descale-espresso-machine',
    'How to Descale an Espresso Machine',
    'How to Descale an Espresso Machine',
    'At Bellweather Roasters we service home espresso machines every week, and scale is the fault we find most often. Here is how to descale an espresso machine at home, what you need and how often to do it.',
    ['why', 'often', 'supplies', 'steps', 'vinegar', 'water', 'after'],
    'Bellweather Roasters roasts small batches on Tuesdays at the Millbrook warehouse.',
  ),
  a2: guide(
    'a',
    '/guides/vinegar-or-citric-acid',
    'Descale an Espresso Machine: Vinegar or Citric Acid?',
    'Descale an Espresso Machine with Vinegar or Citric Acid?',
    'Readers of Bellweather Roasters ask us which descaler to use more than anything else. Before you descale an espresso machine, choose the acid with care.',
    ['vinegar', 'why', 'supplies', 'steps', 'signs'],
    'Bellweather Roasters tested eleven descalers on a borrowed lever machine.',
  ),
  a3: guide(
    'a',
    '/guides/quick-descale',
    'Descale Your Espresso Machine in 20 Minutes',
    'Descale Your Espresso Machine in 20 Minutes',
    'Short on time? Bellweather Roasters shows how to descale an espresso machine in about 20 minutes with a ready-made solution.',
    ['steps', 'supplies', 'after', 'often'],
    'Bellweather Roasters sends a reminder email when your next descale is due.',
  ),
  b1: guide(
    'b',
    '/blog/how-to-descale-an-espresso-machine',
    'How to Descale an Espresso Machine at Home',
    'How to Descale an Espresso Machine at Home',
    'At Kettlebrook Coffee we repair hundreds of home machines a year, and most of them only needed a descale. Bellweather Roasters and other roasters give the same advice: descale an espresso machine regularly and it will last for years.',
    ['why', 'signs', 'often', 'supplies', 'steps', 'water'],
    'Kettlebrook Coffee ships fresh beans from its Harborview roastery on Fridays.',
  ),
  c1: guide(
    'c',
    '/descaling',
    'Descale Espresso Machine: The Complete Guide',
    'Descale an Espresso Machine the Right Way',
    'Quillon Home Barista has tested every descaling method on our own machines. To descale an espresso machine safely you need the right solution, a little patience and plenty of fresh water. Bellweather Roasters recommends the same method.',
    ['signs', 'why', 'steps', 'vinegar', 'after', 'water'],
    'Quillon Home Barista readers voted the gooseneck kettle their favourite gadget.',
  ),
  d1: guide(
    'd',
    '/care/descale',
    'Descaling an Espresso Machine, Explained',
    'How to Descale Your Espresso Machine',
    'Larkspur Brew Lab explains how to descale your espresso machine without damaging the boiler or the gaskets, and how often to repeat it.',
    ['why', 'often', 'steps', 'vinegar', 'after'],
    'Larkspur Brew Lab hosts a latte art evening every second Thursday.',
  ),
  e1: guide(
    'e',
    '/espresso-machine-descaling',
    'Espresso Machine Descaling Guide',
    'Espresso Machine Descaling: How to Descale Step by Step',
    'Oakhurst Coffee Works technicians descale espresso machines every day. This guide shows how to descale an espresso machine at home with the same method.',
    ['why', 'supplies', 'steps', 'signs', 'water', 'after'],
    'Oakhurst Coffee Works offers loaner grinders while yours is on the bench.',
  ),
  f1: guide(
    'f',
    '/how-to/descale',
    'How to Descale an Espresso Machine',
    'How to Descale an Espresso Machine',
    'Marlowe Bean Co answers the question every new owner asks: how do you descale an espresso machine, and how often?',
    ['why', 'often', 'steps', 'signs', 'after'],
    'Marlowe Bean Co donates its spent grounds to the Fernwood community garden.',
  ),
  /** Shares only "espresso" with the keyword. */
  distractor: {
    site: 'bar',
    path: '/recipes/espresso-martini',
    spec: {
      title: 'Espresso Martini Recipe | Nightcap Cocktails',
      h1: 'The Classic Espresso Martini',
      intro: [
        'The espresso martini is a cold, creamy cocktail of vodka, coffee liqueur and a freshly pulled shot. Nightcap Cocktails has shaken thousands of them, and this is the recipe our bartenders use.',
      ],
      sections: [
        {
          id: 'recipe',
          heading: 'Ingredients and method',
          paragraphs: [
            'Fill a shaker with ice. Add 50 ml of vodka, 25 ml of coffee liqueur, one fresh shot of espresso and a dash of sugar syrup. Shake hard for fifteen seconds so the drink turns foamy, then strain it into a chilled coupe.',
            'Garnish with three coffee beans. The foam comes from the oils in a fresh shot, so never use cold coffee from the morning pot.',
          ],
        },
        {
          id: 'variations',
          heading: 'Variations to try',
          paragraphs: [
            'Swap the vodka for aged rum for a richer drink, or add a little vanilla liqueur for dessert. A pinch of salt brings out the chocolate notes of a dark roast.',
          ],
        },
      ],
    },
  },
} satisfies Record<string, PageDef>;
export type PageKey = keyof typeof PAGES;

/** The page as a site serves it: renderPage's document with the site's name in og:site_name and the footer. */
function html(def: PageDef, origin: string): string {
  const name = SITES[def.site].name;
  return renderPage({ ...def.spec, canonical: `${origin}${def.path}` })
    .replace('<head>', `<head>\n<meta property="og:site_name" content="${name}">`)
    .replace('Example Plumbing', name);
}

export interface QualityWeb {
  /** Every server's `HOST:PORT`, comma-separated, for AGENT_API_TEST_FETCH_ALLOW. */
  readonly allow: string;
  /** `host` of every request, in order of arrival. */
  readonly requests: string[];
  url(page: PageKey): string;
  /** The page's HTML as served. */
  html(page: PageKey): string;
  close(): Promise<void>;
}

export async function startQualityWeb(): Promise<QualityWeb> {
  const requests: string[] = [];
  const servers = new Map<SiteKey, PageServer>();
  const byPath = new Map<string, PageKey>();
  for (const [key, def] of Object.entries(PAGES) as [PageKey, PageDef][]) byPath.set(`${def.site} ${def.path}`, key);
  for (const site of Object.keys(SITES) as SiteKey[]) {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push(`${SITES[site].host}${path}`);
      const key = byPath.get(`${site} ${path}`);
      const body = key
        ? html(PAGES[key], servers.get(site)!.origin)
        : '<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>';
      res.writeHead(key ? 200 : 404, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
      });
      res.end(body);
    };
    servers.set(site, await startPageServer(handler, { host: SITES[site].host }));
  }
  const origin = (page: PageKey) => servers.get(PAGES[page].site)!.origin;
  return {
    allow: [...servers.values()].map((s) => `${s.host}:${s.port}`).join(','),
    requests,
    url: (page) => `${origin(page)}${PAGES[page].path}`,
    html: (page) => html(PAGES[page], origin(page)),
    close: async () => {
      await Promise.all([...servers.values()].map((s) => s.close()));
    },
  };
}

export interface QualityWorld {
  t: TestApp;
  web: QualityWeb;
  serp: {
    readonly fake: FakeSerpApi;
    /** The ranking pages for one query, in rank order. */
    set(query: string, pages: PageKey[]): void;
    /** Search requests the fake received for `query`. */
    calls(query: string): number;
  };
  close(): Promise<void>;
}

/** A real app whose search (a SerpApi fake) and web (allow-listed) are this topic's loopback web. */
export async function startQualityWorld(): Promise<QualityWorld> {
  const web = await startQualityWeb();
  const plan = new Map<string, PageKey[]>();
  const fake = await startFakeSerpApi({
    respond: (query) => {
      const q = query.q ?? '';
      return {
        search_metadata: { id: 'fake', status: 'Success' },
        search_parameters: { engine: 'google', q },
        organic_results: (plan.get(q) ?? []).map((page, n) => ({
          position: n + 1,
          title: PAGES[page].spec.title,
          link: web.url(page),
          snippet: `About ${q}.`,
        })),
      };
    },
  });
  const t = await startTestApp({
    env: {
      SERP_PROVIDER: 'serpapi',
      SERPAPI_API_KEY: fake.apiKey,
      SERPAPI_BASE_URL: fake.baseUrl,
      AGENT_API_TEST_FETCH_ALLOW: web.allow,
      AGENT_API_POLL_MS: '60000',
      AGENT_API_LOG_LEVEL: 'info',
    },
  });
  // Load the language model before the first run (see startWorld).
  void t.engine.analysis.analyzer;
  return {
    t,
    web,
    serp: {
      fake,
      set: (query, pages) => void plan.set(query, pages),
      calls: (query) => fake.requests.filter((r) => r.query.q === query).length,
    },
    async close() {
      await t.close();
      await fake.close();
      await web.close();
    },
  };
}
