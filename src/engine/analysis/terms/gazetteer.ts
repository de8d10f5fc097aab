/**
 * Small word lists behind the entity-type heuristics. They are cues, not a knowledge base: a name that is in none of
 * them and shows no other cue is typed `other`, which is still a useful entity for coverage scoring.
 */

// Multi-word entries are written with `_` for spaces.
const words = (s: string): ReadonlySet<string> =>
  new Set(
    s
      .split(/\s+/)
      .filter((w) => w.length > 0)
      .map((w) => w.replaceAll('_', ' ')),
  );

/** Lower-case place names (multi-word names joined by one space, as entity keys are). */
export const PLACES = words(`
  afghanistan albania algeria argentina armenia australia austria azerbaijan bahamas bangladesh belarus belgium
  bolivia bosnia brazil bulgaria cambodia cameroon canada chile china colombia croatia cuba cyprus czechia denmark
  ecuador egypt estonia ethiopia finland france georgia germany ghana greece guatemala haiti honduras hungary
  iceland india indonesia iran iraq ireland israel italy jamaica japan jordan kazakhstan kenya korea kuwait latvia
  lebanon libya lithuania luxembourg madagascar malaysia mali malta mexico moldova monaco mongolia montenegro
  morocco mozambique myanmar nepal netherlands nicaragua niger nigeria norway oman pakistan panama paraguay peru
  philippines poland portugal qatar romania russia rwanda senegal serbia singapore slovakia slovenia somalia spain
  sudan sweden switzerland syria taiwan tanzania thailand tunisia turkey uganda ukraine uruguay uzbekistan venezuela
  vietnam yemen zambia zimbabwe britain england scotland wales usa us uk uae america europe asia africa antarctica
  oceania arctic caribbean scandinavia balkans
  alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii idaho illinois indiana
  iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri montana
  nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas utah vermont virginia washington wisconsin
  wyoming ontario quebec bavaria catalonia andalusia tuscany provence normandy
  london paris berlin madrid rome milan munich hamburg vienna zurich geneva amsterdam rotterdam brussels lisbon
  porto barcelona valencia seville dublin edinburgh manchester liverpool birmingham glasgow oslo stockholm
  copenhagen helsinki warsaw prague budapest athens istanbul moscow kyiv kiev cairo lagos nairobi johannesburg
  dubai tokyo osaka kyoto seoul beijing shanghai shenzhen bangkok jakarta manila mumbai delhi bangalore
  sydney melbourne brisbane perth auckland toronto montreal vancouver chicago boston seattle houston dallas austin
  denver atlanta miami phoenix philadelphia detroit portland nashville brooklyn manhattan hollywood
  lyon marseille bordeaux nice lille toulouse frankfurt cologne stuttgart dresden leipzig florence venice naples
  new_york new_jersey new_mexico new_hampshire new_zealand new_delhi new_orleans los_angeles san_francisco san_diego
  san_jose las_vegas hong_kong sao_paulo são_paulo rio_de_janeiro buenos_aires mexico_city cape_town tel_aviv
  abu_dhabi saudi_arabia south_africa south_korea north_korea united_states united_kingdom czech_republic
  dominican_republic costa_rica puerto_rico sri_lanka north_carolina south_carolina north_dakota south_dakota
  west_virginia rhode_island silicon_valley middle_east latin_america north_america south_america western_europe
  eastern_europe southeast_asia
`);

/** Last words that make a proper-noun phrase a place (`Hudson River`, `Orange County`). */
export const PLACE_SUFFIXES = words(`
  city county street st avenue ave road rd boulevard river lake mountain mountains mount island islands valley
  bay beach ocean sea gulf desert province region peninsula coast canyon falls hills springs harbor harbour square
  district village town airport park forest strait
`);

/** First words that make a phrase a place (`Lake Tahoe`, `Mount Everest`). */
export const PLACE_PREFIXES = words('lake mount mt cape port fort saint st isle gulf');

/** Last words that make a phrase an organisation. Dotted forms are matched with dots removed. */
export const ORG_SUFFIXES = words(`
  inc corp corporation company co ltd llc llp plc gmbh ag sa nv bv spa srl sarl ltda kg group holdings bank
  airlines airways motors technologies technology systems labs laboratories industries partners capital ventures
  media foundation institute university college school association society agency council commission committee
  ministry department party club fc network networks studios pharmaceuticals electronics software solutions
  services enterprises brands records press times post journal magazine hospital clinic
`);

/** Suffixes dropped from entity keys so `Apple Inc.` and `Apple` aggregate together. */
export const LEGAL_SUFFIXES = words('inc corp ltd llc llp plc gmbh ag co sa nv bv spa srl sarl ltda kg');

/** First words that make a phrase an organisation (`University of Oxford`, `Bank of America`). */
export const ORG_PREFIXES = words(`
  university bank institute department ministry museum academy federation college school council board
  church office bureau commission
`);

/** Words after which `of` stays inside a name (`Bank of America`, `Gulf of Mexico`). */
export const OF_HEADS = new Set([
  ...ORG_PREFIXES,
  ...PLACE_PREFIXES,
  ...words(`
  republic kingdom state states united city duke prince princess queen king house court commonwealth province
  sea bay isle district league society association
`),
]);

/** Lower-case connectors allowed inside a name when capitalised words stand on both sides. */
export const NAME_CONNECTORS = words('of & de del della di da do dos das du des la le van von der den');

/** Titles that mark a person and are dropped from the name. Dotted forms are matched with dots removed. */
export const HONORIFICS = words('mr mrs ms mx dr prof sir dame lord lady mme mlle herr frau sr sra sres');

/** Lower-case words just before a name that mark a person (`CEO Tim Cook`, `chef Ottolenghi`). */
export const PERSON_ROLES = words(`
  ceo cfo cto coo founder cofounder co-founder president chairman chairwoman chair director author writer
  chef coach professor senator governor mayor minister spokesperson spokesman spokeswoman editor reporter
  analyst actor actress singer artist designer engineer scientist researcher doctor nurse manager owner
`);

/** Verbs just after a name that mark a person when the name has two or more words. */
export const PERSON_VERBS = words(`
  said says told wrote writes explained explains added adds noted notes argued argues recalled recalls
  tweeted posted believes thinks recommends suggested suggests
`);

/** Common first names (lower case): a two- or three-word name starting with one is a person. */
export const FIRST_NAMES = words(`
  james john robert michael william david richard joseph thomas charles christopher daniel matthew anthony mark
  donald steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan jacob gary
  nicholas eric jonathan stephen larry justin scott brandon benjamin samuel gregory alexander frank patrick
  raymond jack dennis jerry tyler aaron jose adam nathan henry douglas zachary peter kyle noah ethan jeremy walter
  christian keith roger terry austin sean gerald carl harold dylan arthur lawrence jordan jesse bryan billy bruce
  gabriel joe logan albert willie alan eugene russell vincent philip bobby johnny bradley roy ralph tim tom bill
  steve mike chris dan dave jim bob ben sam max alex elon jeff warren mary patricia jennifer linda elizabeth
  barbara susan jessica sarah karen lisa nancy betty sandra margaret ashley kimberly emily donna michelle carol
  amanda melissa deborah stephanie dorothy rebecca sharon laura cynthia amy kathleen angela shirley brenda emma
  anna pamela nicole samantha katherine christine helen debra rachel carolyn janet maria catherine heather diane
  olivia julie joyce victoria ruth virginia lauren kelly christina joan evelyn judith andrea hannah megan cheryl
  jacqueline martha madison teresa gloria sara janice ann kathryn abigail sophia frances jean alice judy isabella
  julia grace amber denise danielle marilyn beverly charlotte natalie theresa diana brittany doris kayla alexis
  lori marie kate jane meg oprah taylor hans klaus jürgen wolfgang angela pierre jean-pierre françois louis marc
  giuseppe giovanni marco luca carlos juan luis miguel antonio javier pedro joão ana sofia lucia yuki hiroshi
  kenji wei li ming raj priya amit rahul mohammed muhammad ahmed ali fatima omar
`);

/** Month and weekday names: wink's date entities cover them, so they never start or extend a name. */
export const CALENDAR_WORDS = words(`
  january february march april may june july august september october november december jan feb mar apr jun jul
  aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thurs fri
  sat sun
`);

/** Capitalised words that are concepts, not names: never an entity on their own (they stay terms). */
export const NOT_NAMES = new Set([
  ...PERSON_ROLES,
  ...words(`
  faq faqs pdf usb hdmi diy roi seo api url html css gps led lcd oled tv pc ai vr ar ok ps pm am eta asap fyi dna
  covid wifi wi-fi id vip kpi b2b b2c saas crm erp hr pr ui ux qa iot rss sms cta bmi vs etc
`),
]);

/** Lower-case words after a name that mark a product (`Pegasus 40 review`). */
export const PRODUCT_CUES = words('review reviews model models edition version series specs price prices');
