/**
 * Research fixtures for the extractive writer tests: small realistic pages about tankless water heaters (a guide,
 * a competitor's service page, a blog comparison, a forum thread, a second guide, an installation article and a
 * German page), run through the real extract(). Excluded-topic bait: "solar water heater" and "rebate".
 */
import { contentHash } from '../../../src/engine/analysis/analysis.ts';
import { extract } from '../../../src/engine/analysis/extract/index.ts';
import type { Extraction } from '../../../src/engine/analysis/extract/types.ts';
import type { ClientContext, ContentRequest, Research, ResearchSource } from '../../../src/engine/content/types.ts';

export interface PageSpec {
  url: string;
  title: string;
  lang?: string;
  body: string;
  jsonLd?: unknown[];
}

const faqLd = (pairs: [string, string][]): unknown => ({
  '@context': 'https://schema.org',
  '@type': 'FAQPage',
  mainEntity: pairs.map(([q, a]) => ({ '@type': 'Question', name: q, acceptedAnswer: { '@type': 'Answer', text: a } })),
});

function html(p: PageSpec): string {
  const ld = (p.jsonLd ?? []).map((x) => `<script type="application/ld+json">${JSON.stringify(x)}</script>`).join('\n');
  return `<!doctype html><html lang="${p.lang ?? 'en'}"><head><meta charset="utf-8"><title>${p.title}</title>
<meta name="description" content="${p.title}">${ld}</head><body>
<header><nav><a href="/">Home</a> <a href="/services">Services</a> <a href="/blog">Blog</a> <a href="/contact">Contact</a></nav></header>
<div class="cookie-banner">We use cookies to improve your experience. <a href="/privacy">Privacy policy</a></div>
<main><article>${p.body}</article></main>
<aside class="newsletter"><h3>Newsletter</h3><p>Subscribe to our newsletter for weekly tips and deals.</p></aside>
<footer><p>Copyright 2024. All rights reserved.</p><a href="/terms">Terms of service</a></footer>
</body></html>`;
}

export const PAGES: PageSpec[] = [
  {
    url: 'https://www.heatwise.example/guides/tankless-water-heater',
    title: 'Tankless Water Heaters: The Complete Guide | HeatWise',
    jsonLd: [
      faqLd([
        [
          'Do tankless water heaters need maintenance?',
          'Yes. Flush the heat exchanger with a vinegar solution once a year to remove scale, more often if you have hard water. Clean the inlet water filter every few months.',
        ],
        [
          'Are there rebates for tankless water heaters?',
          'Many utilities offer rebates of $100 to $500 for high-efficiency gas models.',
        ],
      ]),
    ],
    body: `<h1>Tankless water heaters: the complete guide</h1>
<p>A tankless water heater heats water only when you open a tap, instead of keeping a storage tank hot all day. Tankless units are also called on-demand or instantaneous water heaters. For most households they cut water heating energy use by 24 to 34 percent compared with a standard tank.</p>
<h2>What is a tankless water heater?</h2>
<p>A tankless water heater is a compact unit that mounts on a wall and heats water as it flows through a heat exchanger. Gas models use a burner, while electric models use several heating elements. Because there is no tank, there is no standby heat loss through the tank walls. A typical unit is about the size of a carry-on suitcase and frees up floor space in a garage or closet.</p>
<h2>How tankless water heaters work</h2>
<p>When you turn on a hot water tap, cold water enters the unit and a flow sensor detects the movement. The control board then fires the burner or switches on the elements. Water passes through the heat exchanger and leaves at the temperature you set, usually 120°F. When you close the tap, the unit shuts off within a few seconds.</p>
<ul><li>A flow sensor detects demand at about half a gallon per minute.</li><li>The heat exchanger transfers heat from the burner to the water.</li><li>A modulating gas valve matches the flame to the flow rate.</li><li>The venting system carries combustion gases outside.</li></ul>
<h2>Benefits of going tankless</h2>
<p>The biggest benefit is an endless supply of hot water, as long as demand stays within the unit's flow rate. Tankless heaters last 20 years or more, roughly twice as long as a tank. They take up far less space and eliminate the risk of a tank bursting and flooding a room. Lower standby losses also mean lower monthly energy bills.</p>
<h2>Tankless water heater cost</h2>
<p>A gas tankless water heater costs $1,000 to $2,500 for the unit alone. Professional installation adds $1,500 to $3,000, depending on venting and gas line upgrades. Electric tankless units cost less to buy, often $500 to $1,500, but many homes need an electrical panel upgrade to run them. Over the life of the unit, lower energy bills recover part of the higher upfront cost.</p>
<h2>How to choose a tankless water heater</h2>
<p>Start by estimating your peak flow rate: add up the gallons per minute of the fixtures you run at the same time. A shower uses about 2 gallons per minute and a kitchen faucet about 1.5. Next, find the temperature rise you need by subtracting your incoming water temperature from your target temperature. In northern states, groundwater can be as cold as 40°F, so the unit must raise the temperature by 80 degrees.</p>
<ul><li>Choose a condensing gas model for the highest efficiency.</li><li>Check that your gas meter and line can supply the unit's full BTU rating.</li><li>Look for a unit with a built-in recirculation pump if your bathrooms are far from the heater.</li><li>Compare warranties on the heat exchanger, which should be at least 10 years.</li></ul>
<h2>Solar water heaters as an alternative</h2>
<p>A solar water heater uses roof collectors to preheat water and can cut water heating costs in half. Solar water heaters need a backup heater for cloudy days.</p>
<h2>Frequently asked questions</h2>
<h3>Do tankless water heaters need maintenance?</h3>
<p>Yes. Flush the heat exchanger with a vinegar solution once a year to remove scale, more often if you have hard water. Clean the inlet water filter every few months.</p>
<h3>Can a tankless water heater run out of hot water?</h3>
<p>It never runs out, but it can fall behind if you open more fixtures than its flow rate can heat. In that case the water gets cooler rather than stopping.</p>`,
  },
  {
    url: 'https://www.flowpros.example/tankless-installation',
    title: 'Tankless Water Heater Installation in Denver | FlowPros',
    jsonLd: [
      faqLd([
        [
          'How long does tankless installation take?',
          'Most tank-to-tankless conversions take one full day, including venting and gas work.',
        ],
        [
          'Is a tankless water heater worth it?',
          'For households that use a lot of hot water, the energy savings and 20-year lifespan usually justify the higher upfront cost.',
        ],
      ]),
    ],
    body: `<h1>Tankless water heater installation in Denver</h1>
<p>FlowPros has installed more than 3,000 tankless water heaters across Denver since 2008. We handle permits, venting and gas line sizing. Switching to tankless is one of the most effective upgrades for a busy household.</p>
<h2>Our tankless installation process</h2>
<ol><li>A technician measures your gas line, venting path and peak hot water demand.</li><li>You receive a written quote with the unit model and total price.</li><li>The old tank is drained, disconnected and hauled away.</li><li>The new unit is mounted, vented and connected to gas, water and power.</li><li>The installer tests flow rate, temperature and combustion before leaving.</li></ol>
<p>Most installations take one day. Converting from a tank to a gas tankless unit often requires a larger gas line and new stainless steel or PVC venting.</p>
<h2>Tankless water heater prices</h2>
<table><tr><th>Service</th><th>Price</th></tr><tr><td>Gas tankless, installed</td><td>$3,200–$4,800</td></tr><tr><td>Electric tankless, installed</td><td>$1,800–$3,000</td></tr><tr><td>Annual flush</td><td>$175</td></tr></table>
<p>Installed prices for a gas tankless conversion usually fall between $3,200 and $4,800 in the Denver area.</p>
<h2>Why homeowners choose FlowPros</h2>
<p>Our plumbers are licensed and insured. Call (303) 555-0117 for a free estimate.</p>
<h2>Areas we serve</h2>
<p>Tankless installation is available in Denver, Aurora, Lakewood and Littleton.</p>`,
  },
  {
    url: 'https://blog.homewater.example/tankless-vs-tank',
    title: 'Tankless vs Tank Water Heaters: Which Is Better?',
    body: `<h1>Tankless vs tank water heaters: which is better?</h1>
<p>Choosing between a tankless and a tank water heater comes down to upfront cost, energy use and how much hot water your household needs at once.</p>
<h2>Tankless vs tank water heaters</h2>
<p>A standard 50-gallon tank costs $700 to $1,500 installed, far less than a tankless system. Tanks deliver a large burst of hot water at once, which suits households that run several showers together. Tankless heaters win on efficiency, lifespan and space. A storage tank loses heat around the clock, which accounts for 10 to 20 percent of its energy use.</p>
<h2>Gas vs electric tankless water heaters</h2>
<p>Gas tankless heaters deliver higher flow rates and work well for whole-house use in cold climates. Electric tankless heaters are cheaper to install in homes without a gas line, but a whole-house electric unit can draw 120 amps or more. Point-of-use electric units are a good fit for a single distant bathroom or kitchen sink.</p>
<h2>Tankless water heater maintenance tips</h2>
<ul><li>Descale the heat exchanger once a year with white vinegar and a small pump.</li><li>Clean the cold water inlet filter screen every three months.</li><li>Install a water softener if your water hardness exceeds 7 grains per gallon.</li><li>Check the air intake and exhaust vents for blockages each fall.</li></ul>
<h2>How long do tankless water heaters last?</h2>
<p>A well-maintained tankless water heater lasts 20 years or more. Scale buildup is the main cause of early failure, so annual flushing matters more than the brand.</p>
<h2>Rebates and tax credits</h2>
<p>Federal tax credits cover 30 percent of the cost of qualifying gas tankless heaters, up to $600. Local utility rebates can lower the price further.</p>
<h2>The bottom line</h2>
<p>For a household that regularly runs out of hot water or wants lower energy bills, a tankless water heater pays for itself over its long life. A tank water heater still makes sense when the upfront budget is tight or the home cannot supply the gas or power a tankless unit needs.</p>
<p>Thanks for reading! Subscribe to our newsletter for more tips.</p>`,
  },
  {
    url: 'https://forum.diyhome.example/t/tankless-worth-it/123',
    title: 'Is tankless worth it? - DIY Home Forum',
    jsonLd: [
      { '@context': 'https://schema.org', '@type': 'DiscussionForumPosting', headline: 'Is tankless worth it?' },
    ],
    body: `<h1>Is tankless worth it?</h1>
<div class="post"><p>I think tankless is totally worth it. We installed a Rinnai last year and love it.</p></div>
<div class="post"><p>Thanks, that helps a lot!</p></div>
<div class="post"><p>My tankless heater takes about 15 seconds to deliver hot water to the upstairs shower, which is longer than the old tank took.</p></div>`,
  },
  {
    url: 'https://www.energyguide.example/water-heating/tankless',
    title: 'Tankless Water Heaters Explained | EnergyGuide',
    body: `<h1>Tankless water heaters explained</h1>
<p>Tankless water heaters, also known as demand-type water heaters, provide hot water only as it is needed. They do not produce the standby energy losses associated with storage water heaters.</p>
<h2>How does a tankless water heater work?</h2>
<p>Cold water travels through a pipe into the unit, where a gas burner or an electric element heats it. Tankless units deliver a constant supply of hot water without waiting for a storage tank to refill. The flow rate is the limiting factor: most gas models deliver 5 to 10 gallons per minute.</p>
<h2>Tankless water heater costs</h2>
<p>Installed costs for a whole-house gas tankless system typically range from $2,500 to $5,000. Operating costs are lower because the unit burns fuel only while water is flowing. Homes that use 41 gallons or less of hot water daily see the largest efficiency gains.</p>
<h2>Pros and cons of tankless water heaters</h2>
<ul><li>Pro: hot water never runs out during long showers.</li><li>Pro: units mount on a wall and free up floor space.</li><li>Con: simultaneous showers can exceed the flow rate of a small unit.</li><li>Con: the first few seconds of water at the tap may be cold while the burner fires.</li></ul>
<h2>Sizing a tankless water heater</h2>
<p>To size a unit, multiply the number of fixtures you use at once by their flow rates to find the total gallons per minute. Then check the manufacturer's chart for the flow rate the unit delivers at your required temperature rise. An undersized unit will deliver lukewarm water when demand peaks.</p>
<h2>Solar water heating</h2>
<p>Solar water heaters can supply most of a home's hot water in sunny climates. Solar water heaters pair well with a tankless backup.</p>
<h2>What size tankless water heater do I need?</h2>
<p>Most families of four need a gas unit that delivers 8 to 10 gallons per minute at a 70-degree temperature rise.</p>
<h2>Summary</h2>
<p>Tankless water heaters save energy because they heat water only on demand, and they outlast storage tanks by years. Size the unit to your peak flow rate and temperature rise, and budget for venting or electrical upgrades before you buy.</p>`,
  },
  {
    url: 'https://www.plumbingbasics.example/tankless-installation-guide',
    title: 'Installing a Tankless Water Heater: What to Expect',
    body: `<h1>Installing a tankless water heater: what to expect</h1>
<p>Installing a tankless water heater is more involved than swapping one tank for another. The gas supply, venting and electrical service often need upgrades before the new unit can run at full capacity.</p>
<h2>Gas line and venting requirements</h2>
<p>Most gas tankless units need 150,000 to 199,000 BTU per hour, far more than a 40,000 BTU tank. Many homes need a 3/4-inch gas line in place of the old 1/2-inch line to supply that demand. Condensing units vent through inexpensive PVC pipe, while non-condensing units need stainless steel venting. Vent runs have maximum lengths, so the mounting location matters.</p>
<h2>Electrical requirements for electric tankless heaters</h2>
<p>A whole-house electric tankless heater often needs two or three dedicated 40-amp circuits. Older homes with a 100-amp service may need a panel upgrade before installation. Point-of-use units can run on a single 20- or 30-amp circuit.</p>
<h2>Common tankless installation mistakes</h2>
<ul><li>Undersizing the gas line, which starves the burner at high flow.</li><li>Skipping the isolation valves that make annual flushing easy.</li><li>Mounting the unit too far from the main bathrooms.</li><li>Ignoring local code requirements for condensate drainage.</li></ul>
<h2>Permits and inspections</h2>
<p>Most cities require a plumbing permit and a gas inspection for a tankless conversion. The inspector checks venting clearances, gas pressure and the condensate drain. A permitted installation also protects the manufacturer's warranty.</p>`,
  },
  {
    url: 'https://www.warmwasser.example/durchlauferhitzer',
    title: 'Durchlauferhitzer: der Ratgeber',
    lang: 'de',
    body: `<h1>Durchlauferhitzer: der Ratgeber</h1>
<p>Ein Durchlauferhitzer erwärmt das Wasser nur dann, wenn es gebraucht wird. Dadurch entstehen keine Bereitschaftsverluste wie bei einem Warmwasserspeicher.</p>
<h2>Wie funktioniert ein Durchlauferhitzer?</h2>
<p>Sobald der Wasserhahn geöffnet wird, fließt kaltes Wasser durch den Wärmetauscher des Durchlauferhitzers. Elektronische Durchlauferhitzer regeln die Temperatur auf das Grad genau. Hydraulische Durchlauferhitzer schalten dagegen nur in zwei Leistungsstufen. Für einen Haushalt mit Dusche und Küche reicht meist ein Durchlauferhitzer mit 21 Kilowatt.</p>
<h2>Was kostet ein Durchlauferhitzer?</h2>
<p>Ein elektronischer Durchlauferhitzer kostet zwischen 300 und 700 Euro. Die Installation durch einen Elektriker kostet zusätzlich etwa 200 bis 400 Euro. Ein Durchlauferhitzer braucht einen eigenen Starkstromanschluss mit 400 Volt, den ältere Wohnungen oft nicht haben.</p>`,
  },
];

/** Two more German pages, for a German draft that can draw on several sources. */
export const GERMAN_PAGES: PageSpec[] = [
  {
    url: 'https://www.haustechnik.example/durchlauferhitzer-kaufen',
    title: 'Durchlauferhitzer kaufen: worauf achten?',
    lang: 'de',
    body: `<h1>Durchlauferhitzer kaufen: worauf achten?</h1>
<p>Ein Durchlauferhitzer lohnt sich vor allem dort, wo nur selten warmes Wasser gebraucht wird. Die Leistung des Durchlauferhitzers bestimmt, wie viel warmes Wasser pro Minute fließt.</p>
<h2>Welche Leistung braucht ein Durchlauferhitzer?</h2>
<p>Für eine Dusche sollte ein Durchlauferhitzer mindestens 18 Kilowatt Leistung haben. Für eine Küchenspüle reichen oft schon 11 Kilowatt. Ein zu schwacher Durchlauferhitzer liefert im Winter nur lauwarmes Wasser.</p>
<h2>Was kostet ein Durchlauferhitzer im Betrieb?</h2>
<p>Die Stromkosten eines Durchlauferhitzers hängen vor allem vom Warmwasserverbrauch ab. Ein Vier-Personen-Haushalt zahlt für warmes Wasser aus dem Durchlauferhitzer oft 400 bis 600 Euro im Jahr. Elektronische Geräte sparen gegenüber hydraulischen Geräten etwa 20 Prozent Strom.</p>`,
  },
  {
    url: 'https://www.energieblog.example/durchlauferhitzer-oder-speicher',
    title: 'Durchlauferhitzer oder Warmwasserspeicher?',
    lang: 'de',
    body: `<h1>Durchlauferhitzer oder Warmwasserspeicher?</h1>
<p>Ob ein Durchlauferhitzer oder ein Warmwasserspeicher besser passt, hängt vom Verbrauch und vom Stromanschluss ab.</p>
<h2>Vorteile des Durchlauferhitzers</h2>
<p>Ein Durchlauferhitzer braucht wenig Platz und kann direkt unter dem Waschbecken hängen. Weil kein Wasser warm gehalten wird, gibt es keine Bereitschaftsverluste. Das Wasser ist hygienisch, da es nicht lange im Gerät steht.</p>
<h2>Nachteile des Durchlauferhitzers</h2>
<p>Ein Durchlauferhitzer braucht einen Starkstromanschluss mit hoher Absicherung. Bei mehreren gleichzeitigen Zapfstellen sinkt die Temperatur spürbar. Die Anschaffung eines elektronischen Durchlauferhitzers ist teurer als die eines kleinen Speichers.</p>`,
  },
];

/** Fills the structural fields from the fixture HTML when extract() left them empty (the extractor in progress). */
export function withStructure(ex: Extraction, source: string): Extraction {
  if (ex.headings.length > 0 || ex.paragraphs.length > 0) return ex;
  const text = (s: string): string =>
    s
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  const headings = [...source.matchAll(/<h([1-6])[^>]*>([\s\S]*?)<\/h\1>/g)]
    .map((m) => ({ level: Number(m[1]), text: text(m[2] ?? '') }))
    .filter((h) => h.text !== 'Newsletter');
  const paragraphs = [...source.matchAll(/<p>([\s\S]*?)<\/p>/g)]
    .map((m) => text(m[1] ?? ''))
    .filter((p) => ex.mainText.includes(p));
  const lists = [...source.matchAll(/<(ul|ol)>([\s\S]*?)<\/\1>/g)].map((m) => ({
    ordered: m[1] === 'ol',
    items: [...(m[2] ?? '').matchAll(/<li>([\s\S]*?)<\/li>/g)].map((li) => text(li[1] ?? '')),
  }));
  const tables = [...source.matchAll(/<table>([\s\S]*?)<\/table>/g)].map((m) => {
    const rows = [...(m[1] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
      [...(r[1] ?? '').matchAll(/<t[hd]>([\s\S]*?)<\/t[hd]>/g)].map((c) => text(c[1] ?? '')),
    );
    return { headers: rows[0] ?? [], rows: rows.slice(1) };
  });
  return {
    ...ex,
    h1: headings.find((h) => h.level === 1)?.text ?? '',
    headings: headings.filter((h) => h.level > 1),
    paragraphs,
    lists,
    tables,
  };
}

/** The research: every page through extract(); `structured` also fills the structural fields. */
export function buildResearch(options: { structured?: boolean; pages?: PageSpec[] } = {}): Research {
  const pages = options.pages ?? PAGES;
  const sources: ResearchSource[] = pages.map((p, i) => {
    const source = html(p);
    let extraction = extract(source, { url: p.url });
    if (options.structured) extraction = withStructure(extraction, source);
    return {
      id: i + 1,
      url: p.url,
      title: extraction.title || p.title,
      platform: 'organic',
      position: i + 1,
      contentHash: contentHash(source),
      wordCount: extraction.wordCount,
      extraction,
    };
  });
  return { query: 'tankless water heater', searches: [], sources, skipped: [], imported: null };
}

export const CLIENT: ClientContext = {
  name: 'HeatRight',
  domain: 'heatright.example',
  serviceArea: 'Boulder County',
  brandVoice: null,
  knowledgeBase: [
    'HeatRight Plumbing installs gas and electric tankless water heaters in Boulder County.',
    'Every HeatRight installer is a licensed master plumber with at least ten years of experience.',
    'HeatRight offers a 12-year labor warranty on every tankless water heater installation.',
    'Call HeatRight at (720) 555-0100 or book a visit online at heatright.example.',
  ].join('\n\n'),
  excludedTopics: ['solar water heater', 'rebate'],
};

/** A request with defaults; override what a test varies. */
export function request(overrides: Partial<ContentRequest> = {}): ContentRequest {
  return {
    topic: 'tankless water heater',
    intent: 'educate',
    language: 'en',
    location: 'United States',
    tone: 'clear_practical',
    customInstructions: null,
    wordCountTarget: 1200,
    projectMode: 'new',
    pageContract: 'article',
    sourceUrl: null,
    researchPlatforms: ['organic'],
    draftBody: null,
    context: null,
    ...overrides,
  };
}

/** True when `text` is quoted verbatim from the page (or knowledge base) behind `url`. */
export function isQuoted(research: Research, client: ClientContext, text: string, url: string): boolean {
  const norm = (s: string): string => s.replace(/\s+/g, ' ');
  if (url.startsWith('knowledge-base:')) return norm(client.knowledgeBase ?? '').includes(text);
  if (research.imported && url === research.imported.url) return norm(research.imported.markdown).includes(text);
  const s = research.sources.find((x) => x.url === url);
  if (!s) return false;
  return norm([s.extraction.mainText, ...s.extraction.structuredData.faq.map((f) => f.answer)].join('\n')).includes(
    text,
  );
}
