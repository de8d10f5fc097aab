/** Result shapes of `extract()`: page-level metadata plus a description of the page's main content. */
import type { PageType } from '../page-type/index.ts';
import type { PageSignals } from '../page-type/signals.ts';

export interface Heading {
  level: number;
  text: string;
}

export interface ListBlock {
  ordered: boolean;
  items: string[];
}

export interface Table {
  headers: string[];
  rows: string[][];
}

export interface Image {
  src: string;
  alt: string;
}

export interface Link {
  href: string;
  text: string;
  /** Same registrable host as the page URL (or canonical, when no URL was given). */
  internal: boolean;
}

export interface FaqEntry {
  question: string;
  answer: string;
}

export interface ArticleData {
  type: string;
  headline: string;
  author: string[];
  datePublished: string;
  dateModified: string;
  description: string;
}

export interface ProductData {
  name: string;
  description: string;
  brand: string;
  sku: string;
  price: string;
  currency: string;
  availability: string;
  ratingValue: string;
  reviewCount: string;
}

export interface StructuredData {
  faq: FaqEntry[];
  articles: ArticleData[];
  products: ProductData[];
  /** Every schema.org @type seen in JSON-LD, de-duplicated, in document order. */
  types: string[];
}

export interface Extraction {
  title: string;
  metaDescription: string;
  /** The site's name for itself (og:site_name or application-name); '' when the page does not say. */
  siteName: string;
  canonical: string;
  lang: string;
  h1: string;
  headings: Heading[];
  mainText: string;
  wordCount: number;
  paragraphs: string[];
  lists: ListBlock[];
  tables: Table[];
  images: Image[];
  links: Link[];
  structuredData: StructuredData;
  /**
   * Counts read while parsing that tell what kind of page this is (page-type/signals.ts), for `classifyPage`.
   * Absent on extractions built elsewhere (fixtures, older stored records).
   */
  pageSignals?: PageSignals;
}

export interface ExtractOptions {
  /** The page's own URL: resolves relative links and decides which links are internal. */
  url?: string;
  /** The page's type when the caller already knows it; otherwise extraction decides it. */
  pageType?: PageType;
}
