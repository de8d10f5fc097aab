/** Pages of the sample web archive with the demo query each ranks for (web-archive/README.md). */
export const ARCHIVE_PAIRS: readonly { url: string; keyword: string }[] = [
  { url: 'https://www.rapidflowplumbing.com/emergency-plumbing/', keyword: 'emergency plumber' },
  { url: 'https://austinpipepros.com/emergency-plumber-austin', keyword: 'emergency plumber austin' },
  { url: 'https://www.rapidflowplumbing.com/water-heater-repair/', keyword: 'water heater repair' },
  { url: 'https://austinpipepros.com/tankless-water-heater-installation', keyword: 'tankless water heater' },
  { url: 'https://www.lonestarrooter.com/services/burst-pipe-repair/', keyword: 'burst pipe repair' },
  { url: 'https://brewgeek.net/guides/best-espresso-machines-under-500/', keyword: 'best espresso machine under 500' },
  { url: 'https://brewgeek.net/reviews/breville-bambino-plus-review/', keyword: 'breville bambino plus review' },
  { url: 'https://www.crema-supply.com/products/gaggia-classic-pro', keyword: 'gaggia classic pro' },
  { url: 'https://brewgeek.net/guides/how-to-dial-in-espresso/', keyword: 'how to dial in espresso' },
  { url: 'https://www.theloafjournal.com/recipes/beginner-sourdough-bread/', keyword: 'sourdough bread recipe' },
  {
    url: 'https://bakersbench.community/threads/starter-not-rising-after-7-days.2231/',
    keyword: 'sourdough starter not rising',
  },
  { url: 'https://www.theloafjournal.com/guides/why-is-my-sourdough-dense/', keyword: 'why is my sourdough dense' },
  { url: 'https://www.theloafjournal.com/guides/sourdough-discard-recipes/', keyword: 'sourdough discard' },
  {
    url: 'https://www.sunwiseenergy.org/guides/how-much-do-solar-panels-cost/',
    keyword: 'how much do solar panels cost',
  },
  { url: 'https://www.sunwiseenergy.org/guides/heat-pump-vs-furnace/', keyword: 'heat pump vs furnace' },
  {
    url: 'https://www.greenhomeforum.net/threads/is-a-heat-pump-worth-it-in-minnesota.8812/',
    keyword: 'heat pump minnesota',
  },
  { url: 'https://www.sunwiseenergy.org/guides/solar-battery-storage/', keyword: 'solar battery worth it' },
  { url: 'https://www.realcoder.io/articles/python-asyncio-tutorial/', keyword: 'python asyncio tutorial' },
  {
    url: 'https://devforum.codeanswers.net/questions/77120/asyncio-gather-vs-taskgroup',
    keyword: 'asyncio gather vs taskgroup',
  },
  { url: 'https://docs.pyguide.dev/asyncio/queues/', keyword: 'asyncio queue worker' },
  { url: 'https://docs.pyguide.dev/asyncio/timeouts/', keyword: 'asyncio timeout' },
];
