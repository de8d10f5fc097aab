/**
 * Research with boilerplate planted in it, for the research-draft tests: two topics (water heater repair for a
 * Denver plumber, heat pump vs furnace) whose pages carry first-person policy lines, calls to action, a zip-code
 * prompt, testimonials, unbalanced quotes and brackets, a ranking of other businesses, an off-topic solar section,
 * a repeated sentence and abbreviations ("A.O. Smith", "e.g.", "U.S.", "3.5 kW"). The pages go through the real
 * extract() (via buildResearch), with the fixtures' navigation, cookie banner, newsletter box and footer around them.
 *
 * The helpers read a draft and its sources independently of the writer: the source section of a quoted sentence is
 * found from the extraction's own headings and main text, not from anything the writer reports.
 */
import type { Extraction } from '../../../src/engine/analysis/extract/types.ts';
import { countWords } from '../../../src/engine/content/extractive/index.ts';
import type { SourceSection } from '../../../src/engine/content/extractive/placement.ts';
import type { ClientContext, ImportedPage, Research } from '../../../src/engine/content/types.ts';
import { buildResearch, type PageSpec } from './extractive-fixtures.ts';

const faqLd = (pairs: [string, string][]): unknown => ({
  '@context': 'https://schema.org',
  '@type': 'FAQPage',
  mainEntity: pairs.map(([q, a]) => ({ '@type': 'Question', name: q, acceptedAnswer: { '@type': 'Answer', text: a } })),
});

/** Every planted line, as its page shows it: none of them (nor a five-word piece of one) may reach a draft. */
export const PLANTED = [
  // First person, policies and guarantees of a competitor.
  'We guarantee the price will not change once you say yes.',
  'Our technicians arrive within 60 minutes, day or night.',
  'You approve it before any work begins, and the price does not change if the job takes longer than expected.',
  'Customers approve the written price first, and that price does not change once the repair starts.',
  'Our technicians install cold-climate heat pumps across the metro area.',
  'We are rated 4.9 out of 5 by our customers.',
  'We compared water heater repair companies in Denver on price, speed and reviews.',
  'I replaced my own heater last spring and saved a lot of money.',
  // Calls to action and form prompts.
  'Call now for same-day service in Denver!',
  'Get a free quote today and save 10% on your first repair.',
  'Get a free quote today for your heat pump.',
  'Enter your zip code to see if you qualify for $0 down solar panels!',
  'Enter your zip code to see if you qualify for a rebate on a new heater.',
  'Financing is available with approved credit.',
  'Follow us on Facebook for more home tips.',
  // Testimonials.
  '“Best service ever!” – Mike D.',
  '“Fixed in an hour and fairly priced.” – Dana R.',
  'The technician was on time and fixed our heater in an hour.',
  '★★★★★ The furnace was replaced in one day. – Sarah K.',
  // Unbalanced quotes and brackets.
  'Water heater repair prices were exactly what the tablet said.”',
  'Water heater repair costs vary by region and tank size (see the chart for details.',
  // Other businesses in a ranking, and their prices.
  'Quick Fix Plumbing sends a technician within an hour and charges a flat $89 trip fee.',
  'Front Range Water Heaters specializes in tankless units and offers financing on new installs.',
  'Prices are low, but calls after 6 p.m. go to voicemail and may not be returned until morning.',
  'Worker-owned company with bilingual plumbers and transparent pricing.',
  'Emergency fee is $149 after 6 p.m., but the repair rates are fair.',
  // Off topic for "heat pump vs furnace": a solar page's costs.
  'A typical home solar system costs $15,000 to $25,000 before incentives.',
  'Solar panels pay for themselves in 8 to 12 years in most states.',
  // The fixtures' page furniture (extractive-fixtures.ts html()).
  'We use cookies to improve your experience.',
  'Subscribe to our newsletter for weekly tips and deals.',
  'Copyright 2024. All rights reserved.',
];

/** Said twice: on two pages, and as an FAQ answer that repeats a body sentence. */
export const REPEATED = [
  'Flush the tank once a year to remove sediment.',
  'Most water heater repairs cost between $150 and $600, including parts and labor.',
];

export const PLUMBING_PAGES: PageSpec[] = [
  {
    url: 'https://www.quickfixplumbing.example/water-heater-repair',
    title: 'Water Heater Repair in Denver | Quick Fix Plumbing',
    body: `<h1>Water heater repair in Denver</h1>
<p>Quick Fix Plumbing repairs every make of water heater. We guarantee the price will not change once you say yes. Our technicians arrive within 60 minutes, day or night.</p>
<p>A water heater that leaks from the tank itself usually needs to be replaced, while a leak at a valve or fitting can often be repaired.</p>
<h2>Common water heater repairs</h2>
<p>The most common water heater repairs are replacing a failed heating element, a worn thermocouple or a stuck temperature and pressure relief valve. A heating element costs $20 to $60 as a part, and most replacements take under an hour. Sediment that builds up at the bottom of a tank makes rumbling noises and shortens the life of the heater.</p>
<ul><li>Replace the anode rod every three to five years to slow corrosion.</li><li>Flush the tank once a year to remove sediment.</li><li>Test the relief valve by lifting its lever for a few seconds.</li></ul>
<p>Call now for same-day service in Denver!</p>
<p>Get a free quote today and save 10% on your first repair.</p>
<h2>Our repair process</h2>
<p>You approve it before any work begins, and the price does not change if the job takes longer than expected.</p>
<h2>What our customers say</h2>
<p>“Best service ever!” – Mike D.</p>
<p>The technician was on time and fixed our heater in an hour.</p>`,
  },
  {
    url: 'https://www.homeguide.example/water-heater-repair-guide',
    title: "Water Heater Repair: A Homeowner's Guide",
    jsonLd: [
      faqLd([
        [
          'How much does water heater repair cost?',
          'Most water heater repairs cost between $150 and $600, including parts and labor.',
        ],
        [
          'How long does a water heater last?',
          'A tank water heater lasts 8 to 12 years with yearly flushing, and a tankless unit can last 20 years.',
        ],
      ]),
    ],
    body: `<h1>Water heater repair: a homeowner's guide</h1>
<p>Most tank water heaters sold in the U.S. come from a handful of makers, such as A.O. Smith, Rheem and Bradford White. A water heater repair is usually worth it when the unit is less than eight years old and the tank does not leak.</p>
<h2>Signs your water heater needs repair</h2>
<p>Warning signs include e.g. rumbling noises, rusty water, a pilot light that will not stay lit, or water pooling around the base. “Fixed in an hour and fairly priced.” – Dana R. Lukewarm water often points to a failed lower heating element in an electric model. A rotten-egg smell usually comes from a reaction between the anode rod and bacteria in the water.</p>
<h2>Water heater repair cost</h2>
<p>Most water heater repairs cost between $150 and $600, including parts and labor. A standard electric element draws 3.5 kW at 240 volts, so a failed element is a common and cheap fix. Replacing a gas control valve is the most expensive common repair, often $350 to $700.</p>
<p>Water heater repair prices were exactly what the tablet said.” Customers approve the written price first, and that price does not change once the repair starts.</p>

<h2>Repair or replace?</h2>
<p>A tank older than ten to twelve years is usually better replaced than repaired. If a repair costs more than half the price of a new heater, replacement is the better value. A.O. Smith and Rheem both print the manufacture date in the serial number on the water heater's label.</p>`,
  },
  {
    url: 'https://www.energysavers.example/water-heaters/maintenance-and-repair',
    title: 'Water Heater Maintenance and Repair | EnergySavers',
    body: `<h1>Water heater maintenance and repair</h1>
<p>Regular maintenance prevents many water heater repairs and can extend the life of a tank by several years. Water heater repair costs vary by region and tank size (see the chart for details.</p>
<h2>How to flush a water heater</h2>
<p>Turn off the power or set the gas valve to pilot, then close the cold water supply valve. Attach a garden hose to the drain valve and run it to a floor drain or outside. Open the drain valve and a hot water tap, and let the tank empty until the water runs clear. Flush the tank once a year to remove sediment.</p>
<h2>Replacing a heating element</h2>
<p>Electric water heaters have one or two heating elements, and a failed element is the most common cause of lukewarm water. Test each element with a multimeter after switching off the breaker; a good element reads about 10 to 16 ohms. Replacement elements must match the voltage and wattage printed on the heater's label.</p>
<h2>Water heater repair costs</h2>
<p>A professional repair of a thermocouple or relief valve typically costs $150 to $300. Enter your zip code to see if you qualify for a rebate on a new heater. Homeowners who replace an element themselves usually spend less than $50 on parts.</p>
<p>Enter your zip code to see if you qualify for $0 down solar panels!</p>`,
  },
  {
    url: 'https://blog.waterwise.example/water-heater-repair-or-replace',
    title: 'Water Heater Repair or Replacement? How to Decide',
    body: `<h1>Water heater repair or replacement?</h1>
<p>Deciding between a water heater repair and a replacement comes down to the age of the tank, the cost of the repair and how efficient the old unit is.</p>
<h2>When to repair a water heater</h2>
<p>Repair makes sense when a single part has failed, such as a thermostat, an element or a thermocouple. A newer tank with a faulty valve can run for many more years after a simple repair. Water heater repairs on gas models often involve the thermocouple, which shuts off the gas when the pilot goes out.</p>
<h2>When to replace a water heater</h2>
<p>Replace the heater when the tank itself leaks, because a corroded tank cannot be repaired. A heater that needs repeated repairs within two years is also a candidate for replacement. New units are 10 to 20 percent more efficient than models from the early 2000s.</p>
<p>Follow us on Facebook for more home tips.</p>
<p>I replaced my own heater last spring and saved a lot of money.</p>`,
  },
  {
    url: 'https://www.denverhomepros.example/best-water-heater-repair-denver',
    title: '5 Best Water Heater Repair Companies in Denver (2024)',
    body: `<h1>5 Best Water Heater Repair Companies in Denver</h1>
<p>We compared water heater repair companies in Denver on price, speed and reviews.</p>
<h2>1. Quick Fix Plumbing – Fastest response</h2>
<p>Quick Fix Plumbing sends a technician within an hour and charges a flat $89 trip fee.</p>
<h2>2. Front Range Water Heaters – Best for tankless</h2>
<p>Front Range Water Heaters specializes in tankless units and offers financing on new installs.</p>
<h2>3. Rocky Mountain Rooter – Best for budgets</h2>
<p>Prices are low, but calls after 6 p.m. go to voicemail and may not be returned until morning.</p>
<h2>4. Cherry Creek Plumbing Co. – Best for older homes</h2>
<p>Worker-owned company with bilingual plumbers and transparent pricing.</p>
<h2>5. Aurora Heat and Water – Budget pick</h2>
<p>Emergency fee is $149 after 6 p.m., but the repair rates are fair.</p>
<h2>How much does water heater repair cost in Denver?</h2>
<p>Most Denver homeowners pay between $200 and $650 for a water heater repair, with gas valve replacements at the high end. Electric heaters are usually cheaper to repair than gas heaters because the parts cost less.</p>`,
  },
];

export const HEATING_PAGES: PageSpec[] = [
  {
    url: 'https://www.energyfacts.example/heat-pump-vs-furnace',
    title: 'Heat Pump vs Furnace: Which Heats a Home for Less?',
    body: `<h1>Heat pump vs furnace: which heats a home for less?</h1>
<p>A heat pump moves heat from the outdoor air into the house, while a furnace burns gas or oil to make heat. A modern heat pump usually costs less to run than a gas furnace in a mild or moderate climate.</p>
<h2>How a heat pump works</h2>
<p>A heat pump uses a refrigerant loop and a compressor to move heat indoors in winter and outdoors in summer. Because it moves heat instead of making it, a heat pump can deliver three units of heat for every unit of electricity. Cold-climate models keep most of their capacity down to 5°F.</p>
<h2>Running costs compared</h2>
<p>Heating a typical home with a heat pump costs 20 to 50 percent less than heating it with an electric furnace. Compared with a gas furnace, the savings depend on local gas and electricity prices. A 3.5 kW heat pump can heat a small, well-insulated home on its own.</p>
<h2>Heat pump vs furnace: pros and cons</h2>
<h3>Heat pump</h3>
<ul><li>Pro: one system heats and cools the home.</li><li>Con: the upfront price is higher than a furnace.</li></ul>
<h3>Gas furnace</h3>
<ul><li>Pro: a furnace delivers very hot air on the coldest nights.</li><li>Con: a furnace cannot cool the home in summer.</li></ul>`,
  },
  {
    url: 'https://www.comfortpros.example/heat-pump-installation',
    title: 'Heat Pump Installation | ComfortPros Heating',
    body: `<h1>Heat pump installation</h1>
<p>Our technicians install cold-climate heat pumps across the metro area. We are rated 4.9 out of 5 by our customers.</p>
<h2>Heat pump or furnace?</h2>
<p>Many homes keep their gas furnace as a backup and add a heat pump for most of the heating season. A dual-fuel system switches from the heat pump to the furnace when the outdoor temperature drops below a set point.</p>
<p>Get a free quote today for your heat pump.</p>
<h2>Financing</h2>
<p>Financing is available with approved credit.</p>
<h2>Reviews</h2>
<p>★★★★★ The furnace was replaced in one day. – Sarah K.</p>`,
  },
  {
    url: 'https://www.sunnydeals.example/solar-panels',
    title: 'Solar Panels for Your Home',
    body: `<h1>Solar panels for your home</h1>
<p>Enter your zip code to see if you qualify for $0 down solar panels!</p>
<h2>Solar panel cost</h2>
<p>A typical home solar system costs $15,000 to $25,000 before incentives. Solar panels pay for themselves in 8 to 12 years in most states.</p>
<h2>Heat pumps and solar</h2>
<p>Pairing a heat pump with solar panels lets sunshine cover much of the heating bill. A heat pump and a gas furnace can share the load in a dual-fuel system that also runs on solar power.</p>`,
  },
  {
    url: 'https://www.hvacbasics.example/furnace-and-heat-pump-guide',
    title: 'Gas Furnaces and Heat Pumps Explained',
    body: `<h1>Gas furnaces and heat pumps explained</h1>
<p>Gas furnaces and heat pumps are the two most common ways to heat a home in the U.S. Both need regular maintenance, e.g. a filter change every one to three months.</p>
<h2>Gas furnace efficiency</h2>
<p>A furnace's efficiency is measured as AFUE, the share of fuel that becomes heat. New gas furnaces reach 95 to 98 percent AFUE, while older units may be closer to 80 percent.</p>
<h2>Heat pump efficiency</h2>
<p>A heat pump's efficiency is measured as HSPF2 for heating and SEER2 for cooling. The U.S. Department of Energy sets the minimum ratings for new heat pumps and furnaces.</p>
<h2>Installation cost</h2>
<p>Installing a heat pump typically costs $4,000 to $8,000, while a new gas furnace usually costs $3,000 to $6,000 installed. Rebates and tax credits can lower the price of a heat pump considerably.</p>`,
  },
];

/** The research of a topic's pages, through extract() and the fixtures' page furniture. */
export function plantedResearch(pages: PageSpec[], query: string, imported: ImportedPage | null = null): Research {
  return { ...buildResearch({ structured: true, pages }), query, imported };
}

export const PLUMBER: ClientContext = {
  name: 'Mile High Plumbing',
  domain: 'milehighplumbing.example',
  serviceArea: 'Denver, CO',
  brandVoice: null,
  knowledgeBase: [
    'Mile High Plumbing repairs gas and electric water heaters across the Denver metro area.',
    'We carry heating elements, thermocouples and gas valves for every common water heater brand on our trucks.',
    'Every Mile High Plumbing technician is a licensed Colorado plumber.',
    'Call Mile High Plumbing at (303) 555-0199 to book a water heater repair.',
  ].join('\n\n'),
  excludedTopics: [],
};

export const HVAC_CLIENT: ClientContext = {
  name: 'Warm Home Energy',
  domain: null,
  serviceArea: null,
  brandVoice: null,
  knowledgeBase: null,
  excludedTopics: [],
};

/** The client's own page for optimize mode (first person is the client's voice here). */
export const IMPORTED: ImportedPage = {
  url: 'https://milehighplumbing.example/water-heater-repair',
  title: 'Water Heater Repair | Mile High Plumbing',
  markdown: [
    '# Water heater repair in Denver',
    '',
    'Mile High Plumbing repairs gas and electric water heaters across Denver. We fix most water heater problems on the first visit.',
    '',
    '## Our water heater services',
    '',
    '- Heating element and thermostat replacement',
    '- Gas valve and thermocouple repair',
    '- Tank flushing and anode rod replacement',
    '',
    '## Why Denver homeowners call us',
    '',
    'Our plumbers are licensed in Colorado and carry every common part on the truck.',
    '',
    '## Book a repair',
    '',
    'Call Mile High Plumbing at (303) 555-0199 to book a water heater repair.',
    '',
  ].join('\n'),
  wordCount: 80,
  contentHash: 'sha256:planted-imported',
};

const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();
const STEP = /^(?:step\s*)?\d+[.):]\s+/i;

/** A source section read from an extraction: its heading chain (level 2 and deeper), its text and its lines. */
export interface PageSection extends SourceSection {
  lines: string[];
}

/**
 * The sections of a page, read from its extraction alone: `mainText` lines in order, a line that equals one of
 * `extraction.headings` (level 2 or deeper) starts a section under the headings above it of a lower level; the
 * lines before the first such heading are the opening (no headings). A ranked list's numbering ("1. ", "Step 2: ")
 * is not part of a heading's words.
 */
export function pageSections(ex: Extraction): PageSection[] {
  const level = new Map<string, number>();
  for (const h of ex.headings)
    if (!level.has(norm(h.text).toLowerCase())) level.set(norm(h.text).toLowerCase(), h.level);
  const out: PageSection[] = [];
  let current: PageSection = { headings: [], text: '', lines: [] };
  out.push(current);
  const stack: { level: number; text: string }[] = [];
  for (const raw of ex.mainText.split('\n')) {
    const line = norm(raw);
    if (!line) continue;
    const l = level.get(line.toLowerCase());
    if (l !== undefined && l >= 2) {
      while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= l) stack.pop();
      stack.push({ level: l, text: line.replace(STEP, '') });
      current = { headings: stack.map((h) => h.text), text: '', lines: [] };
      out.push(current);
      continue;
    }
    if (line.toLowerCase() === norm(ex.h1).toLowerCase()) continue;
    current.lines.push(line);
    current.text = current.lines.join('\n');
  }
  return out;
}

/** One cited (or uncited) piece of a draft's body, with the H2 it sits under ('' for the opening). */
export interface DraftPiece {
  heading: string;
  text: string;
  ref: number | null;
  /** Under an H3 of the FAQ section. */
  faq: boolean;
}

/** The body of a draft as pieces: each sentence or list item with its citation number, by H2 (Sources aside). */
export function draftPieces(markdown: string, faqHeading = 'Frequently asked questions'): DraftPiece[] {
  const out: DraftPiece[] = [];
  let heading = '';
  let faq = false;
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('_Extractive draft')) continue;
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      const lv = h[1]?.length ?? 0;
      if (lv === 2) {
        heading = h[2] ?? '';
        faq = heading === faqHeading;
        if (heading === 'Sources') break;
      }
      continue;
    }
    if (line.startsWith('[research gap:')) continue;
    const body = line.replace(/^(?:[-*+]|\d+[.)])\s+/, '');
    // A paragraph: pieces end at a citation marker; the rest (template lines, the client's own words) is uncited.
    let rest = body;
    for (const m of body.matchAll(/(.*?) \[(\d+)\](?:\s+|$)/g)) {
      out.push({ heading, text: (m[1] ?? '').trim(), ref: Number(m[2]), faq });
      rest = rest.replace(m[0], '');
    }
    if (rest.trim()) out.push({ heading, text: rest.trim(), ref: null, faq });
  }
  return out;
}

/** The draft's Sources list: number -> URL. */
export function sourceList(markdown: string): Map<number, string> {
  const part = markdown.slice(markdown.indexOf('\n## Sources'));
  return new Map([...part.matchAll(/^(\d+)\. \[[^\]]*\]\(<?([^)>]+)>?\)$/gm)].map((m) => [Number(m[1]), m[2] ?? '']));
}

/** Words each cited page gives the draft (its cited pieces, counted like countWords), over the draft's words. */
export function pageShares(markdown: string): Map<string, number> {
  const urls = sourceList(markdown);
  const total = countWords(markdown);
  const words = new Map<string, number>();
  for (const p of draftPieces(markdown)) {
    if (p.ref === null) continue;
    const url = urls.get(p.ref) ?? `#${p.ref}`;
    words.set(url, (words.get(url) ?? 0) + countWords(p.text));
  }
  return new Map([...words].map(([u, w]) => [u, w / total]));
}

/** Five-word pieces of a line, lower case, for fragment checks. */
export function windows(line: string, size = 5): string[] {
  const words = line.toLowerCase().match(/[\p{L}\p{N}$'’.%-]+/gu) ?? [];
  if (words.length <= size) return [words.join(' ')];
  const out: string[] = [];
  for (let i = 0; i + size <= words.length; i += 1) out.push(words.slice(i, i + size).join(' '));
  return out;
}

/** A text's words in lower case joined by single spaces (punctuation dropped), for window lookups. */
export function flat(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}$'’.%-]+/gu) ?? []).join(' ');
}
