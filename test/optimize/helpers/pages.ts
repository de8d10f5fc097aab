/**
 * The pages of the loopback "web" the Optimize tests score: ten competitor pages that rank for "emergency plumber",
 * a thorough target page that covers what they cover, a thin one that does not, and a partial one that lacks some
 * sections (so adding them must raise the score). Every page is built from the same section bank, deterministically.
 */

export const KEYWORD = 'emergency plumber';

interface Section {
  id: string;
  heading: string;
  paragraphs: string[];
  list?: string[];
  table?: { headers: string[]; rows: string[][] };
}

/** What the ranking pages agree on: the sections every good answer to the query has. */
export const SECTIONS: readonly Section[] = [
  {
    id: 'what',
    heading: 'What counts as a plumbing emergency?',
    paragraphs: [
      'A plumbing emergency is any leak or blockage that damages your home or puts your health at risk if it waits until morning. A burst pipe, a sewer backup, a gas smell near the water heater or a home with no water at all needs an emergency plumber right away.',
      'A dripping faucet or a slow drain is annoying, but it can usually wait for a regular appointment. When water is spreading across the floor or sewage is coming up through a drain, call a licensed emergency plumber.',
    ],
    list: [
      'Burst or frozen pipe',
      'Sewer backup or overflowing toilet',
      'Leaking water heater',
      'Gas smell near an appliance',
      'No running water in the house',
    ],
  },
  {
    id: 'before',
    heading: 'What to do before the emergency plumber arrives',
    paragraphs: [
      'Shut off the main water valve first. The shutoff valve is usually where the water line enters the house, in a basement, a crawl space or next to the water meter. Turning it clockwise stops the water from flooding the room.',
      'Turn off the water heater so it does not overheat while the tank is empty, then open the cold faucets to drain the pipes. Move rugs and valuables out of the way and take photos of the water damage for your insurance claim.',
    ],
    list: [
      'Close the main shutoff valve',
      'Switch off the water heater',
      'Open faucets to drain the lines',
      'Mop up standing water',
      'Photograph the damage for insurance',
    ],
  },
  {
    id: 'cost',
    heading: 'How much does an emergency plumber cost?',
    paragraphs: [
      'Most emergency plumbers charge a call-out fee plus an hourly rate. After-hours, weekend and holiday visits cost more than a regular service call, so ask for upfront pricing before the work starts.',
      'The final price depends on the repair: clearing a clogged drain is cheaper than replacing a burst pipe or a failed water heater. A written estimate protects you from surprise charges.',
    ],
    table: {
      headers: ['Service', 'Typical price'],
      rows: [
        ['After-hours call-out fee', '$150 - $300'],
        ['Burst pipe repair', '$250 - $800'],
        ['Drain or sewer line unclogging', '$200 - $600'],
        ['Water heater repair', '$300 - $1,200'],
      ],
    },
  },
  {
    id: 'speed',
    heading: 'How fast can an emergency plumber arrive?',
    paragraphs: [
      'A good emergency plumbing service answers the phone around the clock and dispatches a plumber within an hour in most neighborhoods. Response time depends on traffic, the weather and how many emergency calls come in that night.',
      'Ask the dispatcher for an arrival window and a text when the technician is on the way, so you know when to expect the truck.',
    ],
  },
  {
    id: 'repairs',
    heading: 'Common emergency plumbing repairs',
    paragraphs: [
      'The most common emergency repairs are burst pipes, leaking water heaters, clogged main sewer lines and frozen pipes in winter. A licensed plumber carries the parts for most of these repairs on the truck.',
      'Sewer line backups often need a camera inspection and hydro jetting to clear roots and grease. A leaking water heater tank usually has to be replaced rather than repaired.',
    ],
    list: [
      'Burst pipe repair',
      'Water heater replacement',
      'Sewer line hydro jetting',
      'Frozen pipe thawing',
      'Toilet and drain unclogging',
    ],
  },
  {
    id: 'choose',
    heading: 'How to choose an emergency plumber',
    paragraphs: [
      'Choose a licensed and insured plumber with upfront pricing, good reviews and a warranty on parts and labor. A company that answers 24/7 with a real dispatcher, not an answering machine, will usually reach you faster.',
      'Check the plumbing license number with the state board and ask whether the emergency rate includes the first hour of labor.',
    ],
  },
  {
    id: 'prevent',
    heading: 'How to prevent plumbing emergencies',
    paragraphs: [
      'Insulate exposed pipes before the first freeze, drain the water heater once a year to remove sediment and never pour grease down the kitchen drain. Replace old washing machine hoses before they burst.',
      'A yearly plumbing inspection finds small leaks, corroded fittings and failing valves before they turn into an expensive emergency.',
    ],
  },
];

const FAQ = [
  {
    q: 'Is a leaking pipe an emergency?',
    a: 'A leaking pipe is an emergency when water is spreading or you cannot stop it at the shutoff valve; a slow drip can wait for a regular visit.',
  },
  {
    q: 'Do emergency plumbers charge more at night?',
    a: 'Yes. Most plumbers add an after-hours fee for nights, weekends and holidays, so ask for the price before the plumber starts.',
  },
  {
    q: 'Should I turn off the water heater during a leak?',
    a: 'Turn off the water heater when you shut off the main water valve, so the empty tank does not overheat.',
  },
];

// Words unique to each competitor, so the pages are not identical and rare words do not become shared terms.
const FLAVOUR = [
  'Our vans carry copper fittings and compression couplings.',
  'Family owned since the spring of 1998.',
  'Technicians wear shoe covers inside every home.',
  'We recycle every replaced tank at the county depot.',
  'Seniors and veterans receive a courtesy discount.',
  'Ask about the maintenance membership with annual checkups.',
  'Financing is available on larger replacements.',
  'Every truck has a thermal camera for hidden leaks.',
  'We also clear gutters after heavy storms.',
  'Bilingual dispatch staff answer every call.',
];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface PageSpec {
  title: string;
  description?: string;
  h1: string;
  intro: string[];
  sections: readonly Section[];
  faq?: boolean;
  images?: boolean;
  internalLinks?: boolean;
  canonical?: string;
  lang?: boolean;
  extra?: string;
}

/** A full HTML document with site furniture (header, navigation, cookie banner, footer) around the main content. */
export function renderPage(spec: PageSpec): string {
  const body: string[] = [];
  body.push(`<h1>${esc(spec.h1)}</h1>`);
  for (const p of spec.intro) body.push(`<p>${esc(p)}</p>`);
  if (spec.images)
    body.push(
      '<figure><img src="/img/plumber-van.jpg" alt="Emergency plumber van outside a house at night"><figcaption>Our emergency plumbers work around the clock.</figcaption></figure>',
    );
  for (const s of spec.sections) {
    body.push(`<h2>${esc(s.heading)}</h2>`);
    for (const p of s.paragraphs) body.push(`<p>${esc(p)}</p>`);
    if (s.list) body.push(`<ul>${s.list.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`);
    if (s.table) {
      body.push(
        `<table><thead><tr>${s.table.headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${s.table.rows
          .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table>`,
      );
    }
  }
  if (spec.images)
    body.push('<p><img src="/img/shutoff-valve.jpg" alt="Main water shutoff valve next to the water meter"></p>');
  if (spec.faq) {
    body.push('<h2>Frequently asked questions</h2>');
    for (const f of FAQ) body.push(`<h3>${esc(f.q)}</h3><p>${esc(f.a)}</p>`);
  }
  if (spec.internalLinks) {
    body.push(
      '<p>Read more in our guides to <a href="/water-heater-repair/">water heater repair</a>, <a href="/drain-cleaning/">drain cleaning</a> and <a href="/sewer-line-repair/">sewer line repair</a>, or see our <a href="/service-areas/">service areas</a>.</p>',
    );
  }
  if (spec.extra) body.push(`<p>${esc(spec.extra)}</p>`);
  const jsonLd = spec.faq
    ? `<script type="application/ld+json">${JSON.stringify({
        '@context': 'https://schema.org',
        '@type': 'FAQPage',
        mainEntity: FAQ.map((f) => ({
          '@type': 'Question',
          name: f.q,
          acceptedAnswer: { '@type': 'Answer', text: f.a },
        })),
      })}</script>`
    : '';
  return `<!doctype html>
<html${spec.lang === false ? '' : ' lang="en"'}>
<head>
<meta charset="utf-8">
<title>${esc(spec.title)}</title>
${spec.description ? `<meta name="description" content="${esc(spec.description)}">` : ''}
${spec.canonical ? `<link rel="canonical" href="${esc(spec.canonical)}">` : ''}
${jsonLd}
</head>
<body>
<div class="cookie-banner">We use cookies to improve your experience. <a href="/privacy/">Privacy policy</a> <button>Accept</button></div>
<header><a href="/">Home</a><nav><ul><li><a href="/services/">Services</a></li><li><a href="/about/">About</a></li><li><a href="/reviews/">Reviews</a></li><li><a href="/contact/">Contact</a></li></ul></nav></header>
<main><article>
${body.join('\n')}
</article></main>
<aside><h4>Call now</h4><p><a href="tel:+15125550100">(512) 555-0100</a></p></aside>
<footer><p>&copy; 2026 Example Plumbing. All rights reserved.</p><ul><li><a href="/privacy/">Privacy</a></li><li><a href="/terms/">Terms</a></li><li><a href="/sitemap/">Sitemap</a></li></ul></footer>
</body>
</html>`;
}

/** Competitor `i` (0-9): most sections (each page skips a different one or two), some with FAQ, images and lists. */
export function competitorSpec(i: number, origin: string): PageSpec {
  const sections = SECTIONS.filter((_, k) => (k + i) % 5 !== 0);
  const cities = [
    'Austin',
    'Dallas',
    'Houston',
    'Denver',
    'Phoenix',
    'Atlanta',
    'Chicago',
    'Seattle',
    'Tampa',
    'Boston',
  ];
  return {
    title: `Emergency Plumber in ${cities[i]} | 24/7 Plumbing Service`,
    description: `Need an emergency plumber in ${cities[i]}? Licensed plumbers for burst pipes, sewer backups and water heater leaks, 24/7.`,
    h1: `24/7 Emergency Plumber in ${cities[i]}`,
    intro: [
      `When a pipe bursts at night you need an emergency plumber you can trust. Our licensed plumbers in ${cities[i]} answer 24 hours a day, 7 days a week, and fix burst pipes, sewer backups and leaking water heaters fast.`,
    ],
    sections,
    faq: i % 2 === 0,
    images: i % 3 !== 2,
    internalLinks: true,
    canonical: `${origin}/c/${i + 1}`,
    extra: FLAVOUR[i],
  };
}

/** The thorough target: every section, FAQ, images, internal links, complete metadata. */
export function thoroughSpec(origin: string, path = '/target/thorough'): PageSpec {
  return {
    title: 'Emergency Plumber: What to Do, Costs and Response Times',
    description:
      'What counts as a plumbing emergency, what to do before the emergency plumber arrives, typical costs and how to choose a licensed plumber.',
    h1: 'Emergency Plumber Guide: What to Do When a Pipe Bursts',
    intro: [
      'When water is pouring through the ceiling you need an emergency plumber, fast. This guide explains what counts as a plumbing emergency, what to do while you wait, what an emergency plumber costs and how to choose a licensed plumber you can trust.',
    ],
    sections: SECTIONS,
    faq: true,
    images: true,
    internalLinks: true,
    canonical: `${origin}${path}`,
  };
}

/** The partial target: the thorough page without three of the sections the ranking pages share. */
export function partialSpec(origin: string, path = '/target/partial'): PageSpec {
  return {
    ...thoroughSpec(origin, path),
    sections: SECTIONS.filter((s) => !['cost', 'before', 'prevent'].includes(s.id)),
  };
}

/** The thin target: a title, a short H1 and two short paragraphs; no sections, no description. */
export function thinSpec(): PageSpec {
  return {
    title: 'Plumbing',
    h1: 'Plumbing services',
    intro: ['We fix pipes. Call us any time for a plumber.', 'Good prices and friendly staff.'],
    sections: [],
    lang: false,
  };
}
