/**
 * Shapes of content work (jobs and Autopilot): the request, the client context it inherits, the research, the brief
 * and the draft, and the ContentWriter that turns research into a brief and a draft. Writers are the offline
 * extractive writer and the LLM writer (OpenAI-compatible or Anthropic behind `Writer`).
 */
import type { Extraction } from '../analysis/extract/types.ts';
import type { ResearchPlatform } from '../../providers/types.ts';

export const INTENTS = ['educate', 'discover', 'compete', 'convert'] as const;
export type Intent = (typeof INTENTS)[number];
export const TONES = [
  'clear_practical',
  'expert_detailed',
  'friendly_simple',
  'technical_precise',
  'persuasive_direct',
] as const;
export type Tone = (typeof TONES)[number];
export const PAGE_CONTRACTS = ['article', 'commercial_service'] as const;
export type PageContract = (typeof PAGE_CONTRACTS)[number];

/** The validated request of a content job or Autopilot run, defaults applied. */
export interface ContentRequest {
  topic: string;
  intent: Intent;
  language: string;
  /** The SERP geo-target; a generic US location when omitted. */
  location: string;
  tone: Tone;
  customInstructions: string | null;
  /** Words the draft aims at (the request's, or the contract's default). */
  wordCountTarget: number;
  projectMode: 'new' | 'optimize';
  /** Null only when a pre-written draft was supplied. */
  pageContract: PageContract | null;
  sourceUrl: string | null;
  researchPlatforms: ResearchPlatform[];
  draftBody: string | null;
  /** Autopilot's extra context (up to 2,000 characters). */
  context: string | null;
  /** A stepped job's brief as edited when it was approved (absent or null: the brief as written). */
  briefEdits?: BriefEdits | null;
}

/** What approve_content_brief may replace in a brief before the draft is written. */
export interface BriefEdits {
  outline?: { heading: string; level: 2 | 3; points: string[] }[];
  faqs?: { question: string; answer: string | null }[];
  seoMetadata?: { title?: string; metaDescription?: string; slug?: string };
}

/** What a job inherits from its client workspace. */
export interface ClientContext {
  name: string;
  domain: string | null;
  serviceArea: string | null;
  brandVoice: string | null;
  knowledgeBase: string | null;
  excludedTopics: string[];
}

/** One researched page: the citation number is its 1-based position in `Research.sources`. */
export interface ResearchSource {
  id: number;
  url: string;
  title: string;
  platform: ResearchPlatform;
  position: number | null;
  contentHash: string;
  wordCount: number;
  extraction: Extraction;
}

export interface ResearchSearch {
  platform: ResearchPlatform;
  provider: string;
  fetchedAt: string;
  results: { position: number; url: string; title: string }[];
}

/** The imported page of `project_mode: optimize`: the starting draft. The live page is never changed. */
export interface ImportedPage {
  url: string;
  title: string;
  markdown: string;
  wordCount: number;
  contentHash: string;
}

export interface Research {
  query: string;
  searches: ResearchSearch[];
  sources: ResearchSource[];
  /** URLs found but not usable, with the reason. */
  skipped: { url: string; reason: string }[];
  imported: ImportedPage | null;
}

export interface OutlineSection {
  heading: string;
  level: 2 | 3;
  /** What the section covers. */
  points: string[];
  /** Citation numbers the section draws on. */
  sources: number[];
}

export interface SeoMetadata {
  title: string;
  metaDescription: string;
  slug: string;
  h1: string;
  primaryKeyword: string;
  secondaryKeywords: string[];
}

export interface BriefEntity {
  term: string;
  kind: 'term' | 'entity';
  importance: number;
  /** Research pages that use it. */
  sources: number;
  /** Uses per page among the pages that use it: p25-p75 is the range to aim for. */
  range: { p25: number; median: number; p75: number };
}

export interface Faq {
  question: string;
  answer: string;
  /** The researched page the answer comes from, when it comes from one. */
  sourceUrl: string | null;
}

export interface Brief {
  outline: OutlineSection[];
  seoMetadata: SeoMetadata;
  entities: BriefEntity[];
  faqs: Faq[];
}

/** A sentence of a draft and where it comes from (null: written by the model without a researched source). */
export interface DraftSentence {
  text: string;
  section: string;
  sourceUrl: string | null;
}

export interface Draft {
  markdown: string;
  wordCount: number;
  sentences: DraftSentence[];
}

export interface WritingInput {
  request: ContentRequest;
  client: ClientContext;
  research: Research;
  /** An idempotency key for provider calls, stable across retries of the step. */
  idempotencyKey: string;
  signal?: AbortSignal;
}

/** What an optimization pass asks the writer to fix. */
export interface RevisionGoals {
  missingTerms: string[];
  underusedTerms: string[];
  recommendations: string[];
  score: number;
  targetScore: number;
}

/** Turns research into a brief and a draft. Deterministic for the extractive writer. */
export interface ContentWriter {
  /** `extractive`, or the model provider's name. */
  readonly name: string;
  brief(input: WritingInput): Promise<Brief>;
  draft(input: WritingInput & { brief: Brief }): Promise<Draft>;
  revise(input: WritingInput & { brief: Brief; draft: Draft; goals: RevisionGoals }): Promise<Draft>;
}
