/**
 * Page-type signals: counts read from what extraction already built (the compact tree, the metadata, the JSON-LD
 * types, the URL), before furniture removal and Readability change anything. They are plain numbers, so an
 * Extraction can carry them and the classifier (classify.ts) can run later without the document. Counting only:
 * which count means what is decided in features.ts. The tree's signals are read in tree-signals.ts, the URL's in
 * url-signals.ts, and form controls (which never enter the tree) in controls.ts, from the metadata walk.
 */
import { readUrlSignals } from './url-signals.ts';

export { emptyControls, noteControl, type ControlCounts } from './controls.ts';
export { readTreeSignals } from './tree-signals.ts';

/** Every signal, by name; all are counts or 0/1 flags, except the character totals. */
export interface PageSignals {
  [name: string]: number;
}

const FORUM_TYPES = /^(?:DiscussionForumPosting|QAPage|Question|Answer|Comment|SocialMediaPosting|Conversation)$/;
const PRODUCT_TYPES = /^(?:Product|ProductGroup|IndividualProduct|ProductModel|Offer|AggregateOffer|Car|Vehicle|Book)$/;
const ARTICLE_TYPES = /(?:Article|BlogPosting|Blog|Report|Review|Recipe|NewsArticle|OpinionNewsArticle)$/;
const DOCS_TYPES = /^(?:TechArticle|APIReference|SoftwareSourceCode|HowTo)$/;
const COLLECTION_TYPES = /^(?:CollectionPage|ItemList|OfferCatalog|SearchResultsPage|ProductCollection)$/;
const SERVICE_TYPES =
  /^(?:Service|LocalBusiness|ProfessionalService|HomeAndConstructionBusiness|Plumber|Electrician|HVACBusiness|RoofingContractor|GeneralContractor|MovingCompany|LegalService|Attorney|Dentist|MedicalBusiness|MedicalClinic|Physician|AccountingService|FinancialService|InsuranceAgency|AutoRepair|EducationalOrganization|CollegeOrUniversity|Course|EducationalOccupationalProgram|Event|FAQPage|ContactPage|Organization|Corporation)$/;

/** Signals from the head: JSON-LD types, og:type, the generator and the URL. */
export function readHeadSignals(
  meta: { ogType: string; generator: string },
  jsonLdTypes: readonly string[],
  url: string,
  out: PageSignals,
): void {
  const has = (re: RegExp): number => (jsonLdTypes.some((t) => re.test(t)) ? 1 : 0);
  out.ldForum = has(FORUM_TYPES);
  out.ldProduct = has(PRODUCT_TYPES);
  out.ldArticle = jsonLdTypes.some((t) => ARTICLE_TYPES.test(t) && !DOCS_TYPES.test(t)) ? 1 : 0;
  out.ldDocs = has(DOCS_TYPES);
  out.ldCollection = has(COLLECTION_TYPES);
  out.ldService = has(SERVICE_TYPES);
  out.ldFaq = has(/^FAQPage$/);
  out.ldBreadcrumb = has(/^BreadcrumbList$/);
  out.ldAny = jsonLdTypes.length > 0 ? 1 : 0;
  // A price range over several offers, or a list of items: a collection, even beside a Product type.
  out.ldAggregateOffer = has(/^AggregateOffer$/);
  out.ldItemList = has(/^(?:ItemList|ListItem|OfferCatalog)$/);
  out.ldCollectionPage = has(/^(?:CollectionPage|SearchResultsPage)$/);
  out.ldItemPage = has(/^ItemPage$/);
  out.ldQa = has(/^(?:QAPage|Question|Answer|DiscussionForumPosting)$/);
  out.ldSoftware = has(/^(?:SoftwareApplication|WebApplication|MobileApplication)$/);
  out.ldEvent = has(/^(?:Event|Course|EducationalOccupationalProgram|JobPosting)$/);
  const og = meta.ogType;
  out.ogArticle = /article|blog|news/.test(og) ? 1 : 0;
  out.ogProduct = /product/.test(og) ? 1 : 0;
  out.ogWebsite = og === 'website' ? 1 : 0;
  out.ogProductGroup = /product[.:]group/.test(og) ? 1 : 0;
  const gen = meta.generator;
  out.genForum = /discourse|xenforo|vbulletin|phpbb|invision|mybb|nodebb|flarum|vanilla|simple machines|smf/i.test(gen)
    ? 1
    : 0;
  out.genDocs =
    /sphinx|mkdocs|docusaurus|gitbook|vitepress|hugo|jekyll|docfx|readthedocs|mintlify|nextra|starlight|antora|doxygen|javadoc/i.test(
      gen,
    )
      ? 1
      : 0;
  out.genShop = /shopify|woocommerce|magento|prestashop|bigcommerce|shopware|opencart|oxid/i.test(gen) ? 1 : 0;
  out.genWordpress = /wordpress/i.test(gen) ? 1 : 0;
  readUrlSignals(url, out);
}
